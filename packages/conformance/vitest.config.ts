import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspace's packages from their sources, as the type check reads them: see
  // docs/decisions/008-workspace-reads-sources.md.
  ssr: { resolve: { conditions: ['@animal-store/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // As the server suite's: beside every other suite of the test command on two cores, a test
    // took up to ten times its quiet time (30 s against 3, seen in clean-clone runs).
    testTimeout: 90_000,
    // A file's hook starts a server and then runs the key command a few times (make, revoke),
    // one process after another, each with a start's allowance.
    hookTimeout: 240_000,
  },
});
