import { defineConfig } from 'vitest/config';

/**
 * The repository's own workflows, each run in a fresh copy of the repository: `pnpm dev`, the
 * server's deploy folder (and its Dockerfile steps) and the release dry run. One file at a time:
 * each builds the workspace in its copy, which is slow enough without competing for the cores.
 */
export default defineConfig({
  // The workspace's packages from their sources, as the type check reads them: see
  // docs/decisions/008-workspace-reads-sources.md.
  ssr: { resolve: { conditions: ['@animal-store/source'] } },
  test: {
    include: ['test/workflows/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
