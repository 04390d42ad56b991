import {
  type ColumnType,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlQuery,
  type SqlQueryable,
  type SqlResultSet,
} from '@prisma/driver-adapter-utils';
import Database from 'libsql';
import { createGroupCommit } from './group-commit.js';
import { createConnectionLock } from './in-place-transactions.js';
import { fromSqliteError } from './sqlite-errors.js';
import {
  declaredColumnType,
  fromSqliteValue,
  inferredColumnType,
  toSqliteArgument,
} from './sqlite-values.js';

export const ADAPTER_NAME = '@animal-store/libsql-adapter';

/** Distinct SQL texts kept prepared per connection: Prisma sends a small, fixed set. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Statements that change rows, which join a group commit; the rest run on their own. A read
 * taken for a write would only lose its grouping.
 */
const WRITE_STATEMENT = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

interface PreparedQuery {
  statement: Database.Statement;
  /** Whether it returns rows. */
  reader: boolean;
  columnNames: string[];
  /** Null where the column has no declared type Prisma knows: its values tell. */
  declaredTypes: (ColumnType | null)[];
}

/**
 * Each SQL text prepared once and kept, a reading statement set to hand out rows as arrays and
 * integers as bigints (exact to 64 bits): preparing a statement anew and building an object per
 * row was most of what `@libsql/client` cost the server.
 */
function createStatementCache(database: Database.Database) {
  const statements = new Map<string, PreparedQuery>();
  return {
    prepared(sql: string): PreparedQuery {
      const cached = statements.get(sql);
      if (cached) return cached;
      const statement = database.prepare(sql);
      const reader = statement.reader;
      const columns = reader ? statement.columns() : [];
      if (reader) statement.raw(true).safeIntegers(true);
      const query: PreparedQuery = {
        statement,
        reader,
        columnNames: columns.map((column) => column.name),
        declaredTypes: columns.map((column) => declaredColumnType(column.type)),
      };
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
      statements.set(sql, query);
      return query;
    },
    clear() {
      statements.clear();
    },
  };
}

const argumentsOf = (query: SqlQuery) =>
  query.args.map((arg, i) => toSqliteArgument(arg, query.argTypes[i]));

/**
 * A Prisma driver adapter connection to the SQLite database at `path` (`:memory:` for a private
 * in-memory one), on libsql's synchronous native API: a statement is answered in the call that
 * sends it, so no query waits behind a promise-chained lock unless a transaction is open.
 * Writes and transactions are committed in groups, a transaction as a savepoint of its group's
 * (see group-commit.ts), on the connection itself.
 */
export function openLibsqlConnection(
  path: string,
  { busyTimeoutMs }: { busyTimeoutMs: number },
): SqlDriverAdapter {
  const database = new Database(path, { timeout: busyTimeoutMs });
  const statements = createStatementCache(database);
  const lock = createConnectionLock();
  const groupCommit = createGroupCommit(database, lock);

  const queryNow = (query: SqlQuery): SqlResultSet => {
    try {
      const { statement, reader, columnNames, declaredTypes } = statements.prepared(query.sql);
      if (!reader) {
        statement.run(argumentsOf(query));
        return { columnNames: [], columnTypes: [], rows: [] };
      }
      const raw = statement.all(argumentsOf(query)) as unknown[][];
      const columnTypes = declaredTypes.map(
        (type, column) => type ?? inferredColumnType(raw, column),
      );
      const rows = raw.map((row) =>
        row.map((value, column) =>
          fromSqliteValue(value, columnTypes[column] ?? ColumnTypeEnum.Text),
        ),
      );
      return { columnNames, columnTypes, rows };
    } catch (error) {
      throw fromSqliteError(error);
    }
  };

  const executeNow = (query: SqlQuery): number => {
    try {
      return Number(statements.prepared(query.sql).statement.run(argumentsOf(query)).changes);
    } catch (error) {
      throw fromSqliteError(error);
    }
  };

  /**
   * Runs `work` at once when nothing holds the connection, else once the group commit holding it
   * (and the transactions in it) has committed: nothing outside reads what is not yet durable. A
   * write joins the next group commit, unless it belongs to a transaction opened by SQL text.
   */
  const outsideTransactions = async <T>(work: () => T, query?: SqlQuery): Promise<T> => {
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

  /** The connection as a transaction holding it uses it: no waiting, no grouping. */
  const inTransaction: SqlQueryable = {
    provider: 'sqlite',
    adapterName: ADAPTER_NAME,
    queryRaw: async (query) => queryNow(query),
    executeRaw: async (query) => executeNow(query),
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
          throw fromSqliteError(error);
        }
      }),
    startTransaction: (isolationLevel) =>
      groupCommit.startTransaction(inTransaction, isolationLevel),
    dispose: async () => {
      await groupCommit.idle();
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
