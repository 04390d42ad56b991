import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Where a test file is says where it runs, so that a new file needs no list:
 *
 * - `test/*.test.ts` and the units beside the code (`src/**`): on each database, SQLite and
 *   PostgreSQL (projects `sqlite` and `postgresql`). The default, for every rule the database can
 *   change: what is stored and read back, ids, paging, the statements sent, keys, durability.
 * - `test/database-independent/`: once, on SQLite. HTTP parsing, headers, CORS, OpenAPI shapes,
 *   logs, rate limits (counted in memory or in Redis), signals: the same on either database.
 * - `test/sqlite/`, `test/postgresql/`: what only that database has (a locked or damaged file;
 *   a severed connection, another session's lock, the production deployment).
 * - `test/workflows/`: the repository's own workflows (project `workflows`), once, in a task of
 *   their own beside every suite: each builds the workspace in a fresh copy of the repository.
 */
const ON_EACH_DATABASE = ['src/**/*.test.ts', 'test/*.test.ts'];

/** Tests that also run on Node 24 (`pnpm test:node24`): CONTRIBUTING.md, "Tests", says which. */
const NODE_RUNTIME_TAG = {
  name: 'node-runtime',
  description: "Rests on Node's own behaviour, which can change between Node versions",
};

export default defineConfig({
  // The workspace's packages from their sources, as the type check reads them: see
  // docs/decisions/008-workspace-reads-sources.md.
  ssr: { resolve: { conditions: ['@animal-store/source'] } },
  test: {
    tags: [NODE_RUNTIME_TAG],
    // Hang guards, not speed claims. Many tests start processes one after another (the server,
    // its key command, three instances behind HAProxy): with every other suite and the web
    // suite's browsers on the same two cores, one start took ten times its quiet time, and on a
    // slow morning tests of several starts ran past 90 s (the key command's list, a rolling
    // restart, five starts of the durable-create test).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Files in parallel: each has servers and databases of its own, and spends most of its time
    // waiting on them (sockets, statements, the processes it starts) rather than computing, so
    // twice as many files as cores keep the cores busy. Both databases' projects share them.
    maxWorkers: availableParallelism() * 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          globalSetup: ['test/support/global-setup.ts', 'test/support/server-build.ts'],
          include: [
            ...ON_EACH_DATABASE,
            'test/database-independent/**/*.test.ts',
            'test/sqlite/**/*.test.ts',
          ],
          env: { TEST_DATABASE_PROVIDER: 'sqlite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgresql',
          globalSetup: ['test/support/global-setup.ts', 'test/support/server-build.ts'],
          include: [...ON_EACH_DATABASE, 'test/postgresql/**/*.test.ts'],
          env: { TEST_DATABASE_PROVIDER: 'postgresql' },
        },
      },
      {
        extends: true,
        test: {
          name: 'workflows',
          include: ['test/workflows/**/*.test.ts'],
          // Two at a time: the release rehearsal, the longest (its files run first, the largest
          // first), beside the others one after another. One at a time, the three others ran
          // alone after the suites had ended, with a core idle in their waits (installs, starts).
          // Each works in its own copy of the repository, on ports and processes of its own.
          maxWorkers: 2,
          // After the other projects where one vitest run has both (the Node 24 pass's): vitest
          // runs projects of different `maxWorkers` only as groups one after another.
          sequence: { groupOrder: 1 },
          // Hang guards, not speed claims: the release rehearsal's setup (a copy of the
          // repository installed, built and released to a registry of its own) took 10 minutes
          // beside every suite in a clean-clone run on a slow morning.
          testTimeout: 1_200_000,
          hookTimeout: 1_200_000,
        },
      },
    ],
  },
});
