import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // As the server suite's: beside every other suite of the test command on two cores, a test
    // took up to ten times its quiet time (30 s against 3, seen in clean-clone runs).
    testTimeout: 90_000,
    hookTimeout: 60_000,
    // Files in parallel, more than there are cores: most of a file's time is spent waiting on
    // what it starts (servers, databases, processes, installs), not computing.
    maxWorkers: availableParallelism() * 2,
  },
});
