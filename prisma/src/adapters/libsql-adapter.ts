/**
 * The server's SQLite driver adapter, on libsql's synchronous native API (the `libsql` package)
 * rather than `@libsql/client`, whose per-statement `prepare` and row objects were a quarter of
 * the server's CPU. Its parts: the connection and its kept statements (libsql-connection.ts),
 * the group commit (group-commit.ts), transactions on the connection (in-place-transactions.ts),
 * following the database file (file-following-connection.ts), and the conversions of values
 * (sqlite-values.ts) and errors (sqlite-errors.ts) of Prisma's driver-adapter contract.
 */
import type { SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { fileFollowingConnection } from './file-following-connection.js';
import { ADAPTER_NAME, openLibsqlConnection } from './libsql-connection.js';

const IN_MEMORY = ':memory:';

/** Opens a connection in WAL mode with every commit on disk before it is acknowledged. */
async function openDurableConnection(
  path: string,
  options: { busyTimeoutMs: number },
): Promise<SqlDriverAdapter> {
  const connection = openLibsqlConnection(path, options);
  const pragma = (sql: string) => connection.queryRaw({ sql, args: [], argTypes: [] });
  const { rows } = await pragma('PRAGMA journal_mode = WAL');
  const mode = String(rows[0]?.[0]);
  // An in-memory database has no file to keep a WAL beside, and says `memory`.
  if (mode !== 'wal' && mode !== 'memory') {
    await connection.dispose();
    throw new Error(`SQLite database ${path} refused WAL mode; its journal mode is "${mode}".`);
  }
  // FULL (libsql's default, made explicit): a commit is on disk before it is acknowledged.
  await pragma('PRAGMA synchronous = FULL');
  return connection;
}

/**
 * The driver adapter of the server's Prisma client for the SQLite database file `path`
 * (`:memory:` for a private in-memory database): one connection (see libsql-connection.ts), in
 * WAL mode (readers and a second process do not block on writers) with every commit synced to
 * disk before it is acknowledged, following the file at `path` if it is deleted or replaced.
 */
export function libsqlAdapterFactory(
  path: string,
  options: { busyTimeoutMs: number },
): SqlDriverAdapterFactory {
  const open = () => openDurableConnection(path, options);
  return {
    provider: 'sqlite',
    adapterName: ADAPTER_NAME,
    connect: () => (path === IN_MEMORY ? open() : fileFollowingConnection(path, open)),
  };
}
