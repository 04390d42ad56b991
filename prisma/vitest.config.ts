import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'schema-engine/**/*.test.ts'],
    // The bridge tests run the Prisma CLI: about two seconds a command on a quiet machine, but up
    // to 25 s while CI runs every package's tests at once on two cores.
    testTimeout: 180_000,
  },
});
