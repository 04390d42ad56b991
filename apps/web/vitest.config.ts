import { defineConfig } from 'vitest/config';

// End-to-end tests: a real server process, the built app, and Chromium driven by playwright-core.
export default defineConfig({
  // The workspace's packages from their sources, as the type check reads them: see
  // docs/decisions/008-workspace-reads-sources.md.
  ssr: { resolve: { conditions: ['@animal-store/source'] } },
  test: {
    environment: 'node',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/chromium.ts', 'test/support/build-app.ts'],
    // As the server suite's: beside every other suite of the test command on two cores, a test
    // took up to ten times its quiet time (30 s against 3, seen in clean-clone runs).
    testTimeout: 90_000,
    // A page reacts when the browser gets to it: on a busy machine that can take seconds, so
    // `expect.poll` waits as long as playwright's own actions do (10 s), not vitest's 1 s.
    expect: { poll: { timeout: 10_000 } },
    // Each file has its own server and browser. One per core: in CI the server suite runs on the
    // same two cores at the same time, and more browsers than that slowed every process start
    // there several times over.
    maxWorkers: 2,
    hookTimeout: 90_000,
  },
});
