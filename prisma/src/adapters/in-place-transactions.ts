/**
 * Transactions on a SQLite connection itself: one connection, held by one transaction at a time
 * while every other statement waits, instead of a connection per transaction. The schema
 * engine's adapter (schema-engine/sqlite.mjs) runs its transactions so; the server's
 * (libsql-adapter.ts) holds the connection by the same lock, for its group commits.
 */
import {
  DriverAdapterError,
  type IsolationLevel,
  type SqlQueryable,
  type Transaction,
} from '@prisma/driver-adapter-utils';

/** A connection, held by one transaction at a time. */
export interface ConnectionLock {
  /** Whether a transaction holds the connection now. */
  readonly held: boolean;
  /** Waits for the connection, first come first served; resolves to the function releasing it. */
  acquire(): Promise<() => void>;
}

export function createConnectionLock(): ConnectionLock {
  let held = false;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else held = false;
  };
  return {
    get held() {
      return held;
    },
    async acquire() {
      if (held) await new Promise<void>((resolve) => waiting.push(resolve));
      held = true;
      return release;
    },
  };
}

const statementOf = (sql: string) => ({ sql, args: [], argTypes: [] });

/** SQLite's transactions are serializable, and only that level is taken. */
export function refuseOtherIsolationLevels(isolationLevel: IsolationLevel | undefined): void {
  if (isolationLevel !== undefined && isolationLevel !== 'SERIALIZABLE') {
    throw new DriverAdapterError({ kind: 'InvalidIsolationLevel', level: isolationLevel });
  }
}

/**
 * A transaction run on `connection` itself, which `lock` keeps from every other query until it
 * ends. `BEGIN IMMEDIATE` takes SQLite's write lock up front (waiting up to the busy timeout),
 * where a deferred transaction that reads first can fail with SQLITE_BUSY at once when it starts
 * writing while another process writes.
 */
export async function startTransactionInPlace(
  connection: SqlQueryable,
  lock: ConnectionLock,
  isolationLevel?: IsolationLevel,
): Promise<Transaction> {
  refuseOtherIsolationLevels(isolationLevel);
  const release = await lock.acquire();
  try {
    await connection.executeRaw(statementOf('BEGIN IMMEDIATE'));
  } catch (error) {
    release();
    throw error;
  }
  let open = true;
  const end = async (sql: 'COMMIT' | 'ROLLBACK') => {
    if (!open) return;
    open = false;
    try {
      await connection.executeRaw(statementOf(sql));
    } catch (error) {
      // Never hand the connection on inside a transaction. (SQLite may have rolled back
      // already, in which case ROLLBACK fails harmlessly.)
      await connection.executeRaw(statementOf('ROLLBACK')).catch(() => {});
      if (sql === 'COMMIT') throw error;
    } finally {
      release();
    }
  };
  const run = async (sql: string) => {
    await connection.executeRaw(statementOf(sql));
  };
  return {
    provider: connection.provider,
    adapterName: connection.adapterName,
    // Prisma leaves COMMIT and ROLLBACK to commit() and rollback().
    options: { usePhantomQuery: true },
    queryRaw: (query) => connection.queryRaw(query),
    executeRaw: (query) => connection.executeRaw(query),
    commit: () => end('COMMIT'),
    rollback: () => end('ROLLBACK'),
    createSavepoint: (name) => run(`SAVEPOINT ${name}`),
    rollbackToSavepoint: (name) => run(`ROLLBACK TO ${name}`),
    releaseSavepoint: (name) => run(`RELEASE SAVEPOINT ${name}`),
  };
}
