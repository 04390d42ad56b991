import { PrismaClient } from '../generated/sqlite/client.js';
import { sqliteAdapterFactory } from '../schema-engine/sqlite.mjs';

/** The Prisma client of the animal store's database. */
export type DatabaseClient = PrismaClient;

/**
 * A Prisma client on the database at `databaseUrl`, with the driver adapter its scheme calls
 * for. SQLite (`file:`) runs in WAL mode with a busy timeout, so concurrent requests and other
 * processes wait for each other instead of failing with SQLITE_BUSY.
 */
export function createPrismaClient(databaseUrl: string): DatabaseClient {
  const scheme = databaseUrl.split(':', 1)[0];
  if (scheme === 'file') {
    return new PrismaClient({
      adapter: sqliteAdapterFactory(databaseUrl, { writeAheadLog: true }),
    });
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    throw new Error('PostgreSQL is not supported yet: use a "file:" URL for SQLite.');
  }
  throw new Error(`Unsupported database URL scheme "${scheme}:": use a "file:" URL for SQLite.`);
}
