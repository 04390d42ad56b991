import { defineConfig } from 'vitest/config';

/**
 * The repository's own workflows, each run in a fresh copy of the repository: `pnpm dev`, the
 * server's deploy folder (and its Dockerfile steps) and the release dry run. One file at a time:
 * each builds the workspace in its copy, which is slow enough without competing for the cores.
 */
export default defineConfig({
  test: {
    include: ['test/workflows/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
