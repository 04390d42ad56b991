import { PrismaClient as PostgresPrismaClient } from '../generated/postgresql/client.js';
import { PrismaClient } from '../generated/sqlite/client.js';
import { postgresAdapterFactory } from '../schema-engine/postgresql.mjs';
import { sqliteAdapterFactory } from '../schema-engine/sqlite.mjs';

/**
 * The Prisma client of the animal store's database. One type for both databases: the SQLite
 * and PostgreSQL schemas define the same models (the no-drift test in schema-drift.test.ts
 * fails when they differ), so their generated clients have the same model API.
 */
export type DatabaseClient = PrismaClient;

/** Connection settings; SQLite ignores them. */
export interface DatabaseClientOptions {
  /** PostgreSQL: the most connections the client opens. Default 10. */
  poolSize?: number;
  /** PostgreSQL: the server cancels a statement running longer (ms; 0 = never). Default 15000. */
  statementTimeoutMs?: number;
}

export const DEFAULT_DATABASE_CLIENT_OPTIONS = {
  poolSize: 10,
  statementTimeoutMs: 15_000,
} as const satisfies Required<DatabaseClientOptions>;

/** @returns `postgresql` for postgres:// and postgresql:// URLs, `sqlite` for file: URLs. */
export function databaseProvider(databaseUrl: string): 'sqlite' | 'postgresql' {
  const scheme = databaseUrl.split(':', 1)[0];
  if (scheme === 'file') return 'sqlite';
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgresql';
  throw new Error(
    `Unsupported database URL scheme "${scheme}:": use a "file:" URL for SQLite or a "postgresql:" URL.`,
  );
}

/**
 * A Prisma client on the database at `databaseUrl`, with the driver adapter its scheme calls
 * for. SQLite (`file:`) runs in WAL mode with a busy timeout, so concurrent requests and other
 * processes wait for each other instead of failing with SQLITE_BUSY. PostgreSQL
 * (`postgres://`, `postgresql://`) runs on a pool of `poolSize` connections, each with a
 * `statement_timeout`.
 */
export function createPrismaClient(
  databaseUrl: string,
  options: DatabaseClientOptions = {},
): DatabaseClient {
  if (databaseProvider(databaseUrl) === 'sqlite') {
    return new PrismaClient({
      adapter: sqliteAdapterFactory(databaseUrl, { writeAheadLog: true }),
    });
  }
  const { poolSize, statementTimeoutMs } = { ...DEFAULT_DATABASE_CLIENT_OPTIONS, ...options };
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new Error(`The pool size must be a positive integer, not ${poolSize}.`);
  }
  if (!Number.isInteger(statementTimeoutMs) || statementTimeoutMs < 0) {
    throw new Error(
      `The statement timeout must be a whole number of ms, not ${statementTimeoutMs}.`,
    );
  }
  const client = new PostgresPrismaClient({
    adapter: postgresAdapterFactory(databaseUrl, { poolSize, statementTimeoutMs }),
  });
  // The two generated clients differ only in their provider-specific internals; their model
  // API is the same because the schemas' models are (guarded by the no-drift test).
  return client as unknown as DatabaseClient;
}
