import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // A type program or a Vitest project per package: seconds each on a busy machine.
    testTimeout: 60_000,
  },
});
