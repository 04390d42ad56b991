import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // API Extractor builds a TypeScript program per report: seconds each on a busy machine.
    testTimeout: 60_000,
    // Files in parallel, more than there are cores: most of a file's time is spent waiting on
    // what it starts (servers, databases, processes, installs), not computing.
    maxWorkers: availableParallelism() * 2,
  },
});
