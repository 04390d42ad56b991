import { defineConfig } from 'vitest/config';

/**
 * A database behind a network path, with sessions of its own: cutting the path, another session's
 * lock; and the deployment production runs, instances behind a load balancer on PostgreSQL.
 */
const POSTGRES_ONLY = [
  'test/database-outage.test.ts',
  'test/database-statement-timeout.test.ts',
  'test/load-balancer.test.ts',
];
/** A database file (locked by another process, gone bad under us) only means something for SQLite. */
const SQLITE_ONLY = ['test/database-locked.test.ts', 'test/database-file-faults.test.ts'];

export default defineConfig({
  // The workspace's packages from their sources, as the type check reads them: see
  // docs/decisions/008-workspace-reads-sources.md.
  ssr: { resolve: { conditions: ['@animal-store/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [
      // Run once, by vitest.workflows.config.ts.
      'test/workflows/**',
      ...(process.env.TEST_DATABASE_PROVIDER === 'postgresql' ? SQLITE_ONLY : POSTGRES_ONLY),
    ],
    globalSetup: ['test/support/global-setup.ts'],
    // Many tests start processes (the server, the key command through tsx): with the web suite's
    // browsers on the same two cores in CI, one such start can take ten times its quiet time.
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});
