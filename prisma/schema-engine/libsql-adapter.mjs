// @ts-check
/**
 * A Prisma driver adapter for SQLite on libsql's synchronous native API (the `libsql` package:
 * SQLite in-process, its binary shipped as npm packages). It does what Prisma's libsql adapter
 * does over `@libsql/client`, without what made that slow on a server's hot path: a statement is
 * prepared once per connection and kept, rows come back as arrays, and no query waits behind a
 * promise-chained lock unless a transaction is open.
 *
 * Transactions run on the connection itself (`BEGIN IMMEDIATE`, taking the write lock up front,
 * waiting up to the busy timeout), and every other query waits until they end.
 *
 * @import { ColumnType, IsolationLevel, SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, SqlResultSet, Transaction } from '@prisma/driver-adapter-utils'
 * @import { Statement } from 'libsql'
 */

import { statSync } from 'node:fs';
import { ColumnTypeEnum, DriverAdapterError } from '@prisma/driver-adapter-utils';
import Database from 'libsql';

export const ADAPTER_NAME = '@animal-store/libsql-adapter';

/** Distinct SQL texts kept prepared per connection: Prisma sends a small, fixed set. */
const STATEMENT_CACHE_SIZE = 500;

/** @type {Array<[ColumnType, string[]]>} */
const TYPE_NAMES = [
  [ColumnTypeEnum.Numeric, ['DECIMAL']],
  [ColumnTypeEnum.Float, ['FLOAT']],
  [ColumnTypeEnum.Double, ['DOUBLE', 'DOUBLE PRECISION', 'NUMERIC', 'REAL']],
  [ColumnTypeEnum.Int32, ['TINYINT', 'SMALLINT', 'MEDIUMINT', 'INT', 'INTEGER', 'SERIAL', 'INT2']],
  [ColumnTypeEnum.Int64, ['BIGINT', 'UNSIGNED BIG INT', 'INT8']],
  [ColumnTypeEnum.DateTime, ['DATETIME', 'TIMESTAMP']],
  [ColumnTypeEnum.Time, ['TIME']],
  [ColumnTypeEnum.Date, ['DATE']],
  [
    ColumnTypeEnum.Text,
    [
      'TEXT',
      'CLOB',
      'CHARACTER',
      'VARCHAR',
      'VARYING CHARACTER',
      'NCHAR',
      'NATIVE CHARACTER',
      'NVARCHAR',
    ],
  ],
  [ColumnTypeEnum.Bytes, ['BLOB']],
  [ColumnTypeEnum.Boolean, ['BOOLEAN']],
  [ColumnTypeEnum.Json, ['JSONB']],
];

/** SQLite declared column types, as Prisma's column types. */
const DECLARED_TYPES = new Map(
  TYPE_NAMES.flatMap(([type, names]) =>
    names.map((name) => /** @type {[string, ColumnType]} */ ([name, type])),
  ),
);

/**
 * @typedef {object} PreparedQuery
 * @property {Statement} statement
 * @property {boolean} reader whether it returns rows
 * @property {string[]} columnNames
 * @property {(ColumnType | null)[]} declaredTypes null where the column has no declared type
 */

/**
 * The type of a column without a declared type (an expression), from its first non-null value.
 * @param {unknown[][]} rows
 * @param {number} column
 * @returns {ColumnType}
 */
function inferredType(rows, column) {
  for (const row of rows) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') return ColumnTypeEnum.Text;
    if (typeof value === 'bigint') {
      const safe = value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER;
      return safe ? ColumnTypeEnum.UnknownNumber : ColumnTypeEnum.Int64;
    }
    if (typeof value === 'number') return ColumnTypeEnum.UnknownNumber;
    if (typeof value === 'boolean') return ColumnTypeEnum.Boolean;
    if (value instanceof Uint8Array || value instanceof ArrayBuffer) return ColumnTypeEnum.Bytes;
  }
  return ColumnTypeEnum.Int32;
}

/**
 * A value as Prisma reads it. Integers arrive as bigint (exact to 64 bits) and leave as numbers
 * where a number holds them exactly, else as decimal text.
 * @param {unknown} value
 * @param {ColumnType} type
 */
function fromSqlite(value, type) {
  if (typeof value === 'bigint') {
    if (type === ColumnTypeEnum.DateTime) return new Date(Number(value)).toISOString();
    return value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER
      ? Number(value)
      : value.toString();
  }
  if (typeof value === 'number') {
    if (type === ColumnTypeEnum.DateTime) return new Date(value).toISOString();
    if (type === ColumnTypeEnum.Int32 || type === ColumnTypeEnum.Int64) return Math.trunc(value);
  }
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return value;
}

/**
 * An argument as SQLite stores it. Dates are ISO 8601 text with an explicit UTC offset, as
 * Prisma's own SQLite adapters write them, so rows written before and after compare alike.
 * @param {unknown} arg
 * @param {SqlQuery['argTypes'][number] | undefined} argType
 */
function toSqlite(arg, argType) {
  if (arg === null || arg === undefined) return null;
  const scalar = argType?.scalarType;
  if (typeof arg === 'string') {
    if (scalar === 'bigint') return BigInt(arg);
    if (scalar === 'decimal') return Number.parseFloat(arg);
    if (scalar === 'datetime') return new Date(arg).toISOString().replace('Z', '+00:00');
    if (scalar === 'bytes') return Buffer.from(arg, 'base64');
  }
  if (arg instanceof Date) return arg.toISOString().replace('Z', '+00:00');
  if (typeof arg === 'boolean') return arg ? 1 : 0;
  return arg;
}

const SQLITE_BUSY = 5;

/**
 * A SQLite error as the error Prisma maps to its own codes (a unique key, a busy database…).
 * @param {unknown} error
 * @returns {never}
 */
function rethrown(error) {
  const { code, rawCode, message } =
    /** @type {{ code?: unknown, rawCode?: unknown, message?: unknown }} */ (error ?? {});
  if (typeof code !== 'string' || typeof message !== 'string') throw error;
  const extended = typeof rawCode === 'number' ? rawCode : 1;
  const constrained = () =>
    message
      .split('constraint failed: ')
      .at(1)
      ?.split(', ')
      .map((column) => column.split('.').pop() ?? column);
  /** @type {import('@prisma/driver-adapter-utils').MappedError} */
  let mapped;
  if (extended === 2067 || extended === 1555) {
    const fields = constrained();
    mapped = { kind: 'UniqueConstraintViolation', constraint: fields ? { fields } : undefined };
  } else if (extended === 1299) {
    const fields = constrained();
    mapped = { kind: 'NullConstraintViolation', constraint: fields ? { fields } : undefined };
  } else if (extended === 787 || extended === 1811) {
    mapped = { kind: 'ForeignKeyConstraintViolation', constraint: { foreignKey: {} } };
  } else if ((extended & 0xff) === SQLITE_BUSY) {
    mapped = { kind: 'SocketTimeout' };
  } else if (message.startsWith('no such table')) {
    mapped = { kind: 'TableDoesNotExist', table: message.split(': ').at(1) };
  } else {
    mapped = { kind: 'sqlite', extendedCode: extended, message };
  }
  throw new DriverAdapterError({
    originalCode: String(extended),
    originalMessage: message,
    ...mapped,
  });
}

/**
 * @typedef {object} ConnectionLock
 * @property {boolean} held whether a transaction holds the connection now
 * @property {() => Promise<() => void>} acquire waits for the connection; resolves to `release`
 */

/**
 * The connection, held by one transaction at a time: a FIFO queue of those waiting for it.
 * @returns {ConnectionLock}
 */
export function createConnectionLock() {
  let held = false;
  /** @type {Array<() => void>} */
  const waiting = [];
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
      if (held) await new Promise((resolve) => waiting.push(() => resolve(undefined)));
      held = true;
      return release;
    },
  };
}

/** @param {string} sql */
const statementOf = (sql) => ({ sql, args: [], argTypes: [] });

/**
 * A transaction run on `connection` itself, which `lock` keeps from every other query until it
 * ends. `BEGIN IMMEDIATE` takes SQLite's write lock up front (waiting up to the busy timeout),
 * where a deferred transaction that reads first can fail with SQLITE_BUSY at once when it starts
 * writing while another process writes.
 * @param {Pick<SqlDriverAdapter, 'provider' | 'adapterName' | 'queryRaw' | 'executeRaw'>} connection
 * @param {ConnectionLock} lock
 * @param {IsolationLevel} [isolationLevel]
 * @returns {Promise<Transaction>}
 */
export async function startTransactionInPlace(connection, lock, isolationLevel) {
  if (isolationLevel !== undefined && isolationLevel !== 'SERIALIZABLE') {
    throw new DriverAdapterError({ kind: 'InvalidIsolationLevel', level: isolationLevel });
  }
  const release = await lock.acquire();
  try {
    await connection.executeRaw(statementOf('BEGIN IMMEDIATE'));
  } catch (error) {
    release();
    throw error;
  }
  let open = true;
  /** @param {'COMMIT' | 'ROLLBACK'} sql */
  const end = async (sql) => {
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
  /** @param {string} sql */
  const run = async (sql) => {
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

/** Statements that change rows; the rest run on their own. A write taken for a read only loses grouping. */
const WRITE_STATEMENT = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

/**
 * @typedef {object} PendingWrite
 * @property {() => unknown} run the statement, throwing a DriverAdapterError when it fails
 * @property {(value: unknown) => void} resolve
 * @property {(error: unknown) => void} reject
 */

/**
 * Group commit. With `synchronous = FULL` every commit waits for the disk, and on this
 * synchronous driver the whole server waits with it. So writes outside transactions that arrive
 * in the same turn of the event loop are committed together, in one transaction and one wait
 * for the disk; each is answered only once that commit is durable, as it would be alone.
 *
 * A write that fails on its own (a constraint) fails alone, as SQLite undoes only that
 * statement. A failure that ends the transaction (a full disk, an I/O error) or a failed commit
 * fails every write of the group: none of them was acknowledged, and none is stored.
 * @param {InstanceType<typeof Database>} database
 * @param {ConnectionLock} lock held by explicit transactions; the group commits after them
 */
export function createGroupCommit(database, lock) {
  /** @type {PendingWrite[]} */
  let group = [];

  /** @param {unknown} error @returns {unknown} the error as Prisma reads it */
  const mapped = (error) => {
    try {
      return rethrown(error);
    } catch (adapterError) {
      return adapterError;
    }
  };

  /** @param {PendingWrite[]} writes */
  const commitTogether = (writes) => {
    try {
      database.exec('BEGIN IMMEDIATE');
    } catch (error) {
      for (const write of writes) write.reject(mapped(error));
      return;
    }
    /** @type {Array<{ value?: unknown, error?: unknown }>} */
    const outcomes = [];
    for (const write of writes) {
      try {
        outcomes.push({ value: write.run() });
      } catch (error) {
        if (!database.inTransaction) {
          // SQLite rolled the whole transaction back: the writes before this one are gone too.
          for (const each of writes) each.reject(error);
          return;
        }
        outcomes.push({ error });
      }
    }
    try {
      database.exec('COMMIT');
    } catch (error) {
      if (database.inTransaction) {
        try {
          database.exec('ROLLBACK');
        } catch {
          // Rolled back already.
        }
      }
      for (const write of writes) write.reject(mapped(error));
      return;
    }
    writes.forEach((write, index) => {
      const { value, error } = outcomes[index] ?? {};
      if (error === undefined) write.resolve(value);
      else write.reject(error);
    });
  };

  /** @param {PendingWrite} write */
  const runAlone = (write) => {
    try {
      write.resolve(write.run());
    } catch (error) {
      write.reject(error);
    }
  };

  const commitGroup = async () => {
    const release = await lock.acquire();
    const writes = group;
    group = [];
    try {
      // One write alone commits as it is; so do writes inside a transaction opened by SQL text.
      if (writes.length > 1 && !database.inTransaction) commitTogether(writes);
      else for (const write of writes) runAlone(write);
    } finally {
      release();
    }
  };

  return {
    /**
     * Runs `run` in the next group commit; resolves once it is durable.
     * @template T
     * @param {() => T} run
     * @returns {Promise<T>}
     */
    write(run) {
      return new Promise((resolve, reject) => {
        group.push({ run, resolve: /** @type {(value: unknown) => void} */ (resolve), reject });
        // Every write arriving before the event loop's check phase joins this group.
        if (group.length === 1) setImmediate(commitGroup);
      });
    },
  };
}

/**
 * A connection to the SQLite database at `path` (`:memory:` for a private in-memory one).
 * @param {string} path
 * @param {{ busyTimeoutMs: number }} options
 * @returns {SqlDriverAdapter}
 */
export function openLibsqlConnection(path, { busyTimeoutMs }) {
  const database = new Database(path, { timeout: busyTimeoutMs });
  /** @type {Map<string, PreparedQuery>} */
  const statements = new Map();
  const lock = createConnectionLock();
  const groupCommit = createGroupCommit(database, lock);

  /** @param {string} sql */
  const prepared = (sql) => {
    const cached = statements.get(sql);
    if (cached) return cached;
    const statement = database.prepare(sql);
    const reader = statement.reader;
    const columns = reader ? statement.columns() : [];
    if (reader) statement.raw(true).safeIntegers(true);
    /** @type {PreparedQuery} */
    const query = {
      statement,
      reader,
      columnNames: columns.map((column) => column.name),
      declaredTypes: columns.map(
        (column) => DECLARED_TYPES.get(String(column.type ?? '').toUpperCase()) ?? null,
      ),
    };
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
    statements.set(sql, query);
    return query;
  };

  /** @param {SqlQuery} query */
  const argsOf = (query) => query.args.map((arg, i) => toSqlite(arg, query.argTypes[i]));

  /**
   * @param {SqlQuery} query
   * @returns {SqlResultSet}
   */
  const queryNow = (query) => {
    try {
      const { statement, reader, columnNames, declaredTypes } = prepared(query.sql);
      if (!reader) {
        statement.run(argsOf(query));
        return { columnNames: [], columnTypes: [], rows: [] };
      }
      const raw = /** @type {unknown[][]} */ (statement.all(argsOf(query)));
      const columnTypes = declaredTypes.map((type, column) => type ?? inferredType(raw, column));
      const rows = raw.map((row) =>
        row.map((value, column) => fromSqlite(value, columnTypes[column] ?? ColumnTypeEnum.Text)),
      );
      return { columnNames, columnTypes, rows };
    } catch (error) {
      return rethrown(error);
    }
  };

  /** @param {SqlQuery} query */
  const executeNow = (query) => {
    try {
      return Number(prepared(query.sql).statement.run(argsOf(query)).changes);
    } catch (error) {
      return rethrown(error);
    }
  };

  /**
   * Runs `work` at once when no transaction holds the connection, else after the transaction. A
   * write joins the next group commit, unless it belongs to a transaction opened by SQL text.
   * @template T
   * @param {() => T} work
   * @param {SqlQuery} [query] the statement `work` runs
   * @returns {Promise<T>}
   */
  const outsideTransactions = async (work, query) => {
    const write = query !== undefined && WRITE_STATEMENT.test(query.sql);
    if (write && (lock.held || !database.inTransaction)) return groupCommit.write(work);
    if (!lock.held) return work();
    const release = await lock.acquire();
    try {
      return work();
    } finally {
      release();
    }
  };

  const inTransaction = {
    provider: /** @type {const} */ ('sqlite'),
    adapterName: ADAPTER_NAME,
    queryRaw: async (/** @type {SqlQuery} */ query) => queryNow(query),
    executeRaw: async (/** @type {SqlQuery} */ query) => executeNow(query),
  };

  return {
    provider: 'sqlite',
    adapterName: ADAPTER_NAME,
    queryRaw: (query) => outsideTransactions(() => queryNow(query), query),
    executeRaw: (query) => outsideTransactions(() => executeNow(query), query),
    executeScript: (script) =>
      outsideTransactions(() => {
        try {
          database.exec(script);
        } catch (error) {
          rethrown(error);
        }
      }),
    startTransaction: (isolationLevel) =>
      startTransactionInPlace(inTransaction, lock, isolationLevel),
    dispose: async () => {
      statements.clear();
      // SQLite closes a connection only once none of its prepared statements is left, which is
      // when the garbage collector gets to them. Until then it must hold no lock: no open
      // transaction, and not the exclusive locking mode the schema engine migrates in (which
      // holds the file's lock until the next access after switching back).
      try {
        if (database.inTransaction) database.exec('ROLLBACK');
        database.exec('PRAGMA main.locking_mode = NORMAL; SELECT count(*) FROM sqlite_master;');
      } catch {
        // The file went bad under the connection (corrupt, unreadable): there is no lock to
        // release in it, and closing is all that is left to do.
      }
      database.close();
    },
  };
}

/**
 * The database file's identity: which file the path names now, or undefined when none.
 * @param {string} path
 */
function fileAt(path) {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats && `${stats.dev}:${stats.ino}`;
}

/**
 * `fileAt(path)`, looked up once per turn of the event loop: the first query of a turn asks the
 * file system, and the rest of that turn's queries take its answer. A `stat` is a system call
 * (about 3 µs on the bench machine); once per query, it was one of the five a list request made.
 * A file deleted or replaced during a turn is seen from the next turn on, as it would be by a
 * query that had started a moment before the change.
 * @param {string} path
 */
function fileAtEachTurn(path) {
  /** @type {string | undefined} */
  let file;
  let known = false;
  const forget = () => {
    known = false;
  };
  return () => {
    if (!known) {
      file = fileAt(path);
      known = true;
      setImmediate(forget);
    }
    return file;
  };
}

/** SQLITE_CANTOPEN, as SQLite answers when a database file cannot be opened. */
const SQLITE_CANTOPEN = 14;

/**
 * A connection that follows the file at `path` rather than the file it first opened. An open
 * file that is deleted keeps serving its unnamed inode, where every write is lost on the next
 * start; a file replaced by another (a backup moved into place) would be ignored. So before each
 * query and transaction: while no file is at `path`, the query fails as SQLite fails to open a
 * database; once another file is there, the connection to the old one is closed and one to the
 * new one opened. A backup to move into place is one file (`VACUUM INTO`, `.backup`): the old
 * connection's WAL files go with it. The path is looked at once per turn (see fileAtEachTurn).
 * @param {string} path
 * @param {() => Promise<SqlDriverAdapter>} open
 * @returns {Promise<SqlDriverAdapter>}
 */
async function fileFollowingConnection(path, open) {
  /** @type {SqlDriverAdapter | undefined} undefined while a file is being (re)opened or failed to */
  let connection = await open();
  const fileNow = fileAtEachTurn(path);
  let openedFile = fileNow();
  /** @type {Promise<SqlDriverAdapter> | undefined} */
  let switching;

  /** @param {string} file */
  const switchTo = async (file) => {
    // The `-wal` and `-shm` files beside the path still belong to the old file, and the new
    // connection would read the old file's pages from them. So the old connection first moves
    // every page of its WAL into the old file and empties the WAL: libsql closes a connection
    // only once the garbage collector has its statements, too late to leave that to the close.
    const replaced = connection;
    connection = undefined;
    await replaced
      ?.queryRaw({ sql: 'PRAGMA wal_checkpoint(TRUNCATE)', args: [], argTypes: [] })
      .catch(() => {
        // The old file went bad (corrupt, unreadable): its pages are lost either way.
      });
    await replaced?.dispose();
    const opened = await open();
    connection = opened;
    openedFile = file;
    return opened;
  };

  /** @returns {Promise<SqlDriverAdapter>} */
  const current = async () => {
    if (switching) return switching;
    const file = fileNow();
    if (file === undefined) {
      throw new DriverAdapterError({
        kind: 'sqlite',
        extendedCode: SQLITE_CANTOPEN,
        message: `the database file ${path} is gone`,
        originalCode: String(SQLITE_CANTOPEN),
        originalMessage: 'unable to open database file',
      });
    }
    if (connection && file === openedFile) return connection;
    switching = switchTo(file).finally(() => {
      switching = undefined;
    });
    return switching;
  };

  return {
    provider: 'sqlite',
    adapterName: ADAPTER_NAME,
    queryRaw: async (query) => (await current()).queryRaw(query),
    executeRaw: async (query) => (await current()).executeRaw(query),
    executeScript: async (script) => (await current()).executeScript(script),
    startTransaction: async (isolationLevel) => (await current()).startTransaction(isolationLevel),
    dispose: async () => {
      await connection?.dispose();
    },
  };
}

/**
 * The driver adapter of the server's Prisma client: one connection to the database file `path`,
 * in WAL mode (readers and a second process do not block on writers) with every commit synced
 * to disk before it is acknowledged, following the file at `path` if it is deleted or replaced.
 * @param {string} path
 * @param {{ busyTimeoutMs: number }} options
 * @returns {SqlDriverAdapterFactory}
 */
export function libsqlAdapterFactory(path, options) {
  const open = async () => {
    const connection = openLibsqlConnection(path, options);
    const pragma = (/** @type {string} */ sql) =>
      connection.queryRaw({ sql, args: [], argTypes: [] });
    const { rows } = await pragma('PRAGMA journal_mode = WAL');
    const mode = String(rows[0]?.[0]);
    if (mode !== 'wal' && mode !== 'memory') {
      await connection.dispose();
      throw new Error(`SQLite database ${path} refused WAL mode; its journal mode is "${mode}".`);
    }
    // FULL (libsql's default, made explicit): a commit is on disk before it is acknowledged.
    await pragma('PRAGMA synchronous = FULL');
    return connection;
  };
  return {
    provider: 'sqlite',
    adapterName: ADAPTER_NAME,
    connect: () => (path === ':memory:' ? open() : fileFollowingConnection(path, open)),
  };
}
