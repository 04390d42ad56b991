import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // API Extractor builds a TypeScript program per report: seconds each on a busy machine.
    testTimeout: 60_000,
  },
});
