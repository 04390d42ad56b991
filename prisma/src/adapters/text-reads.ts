import type {
  ArgScalarType,
  ArgType,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';

/** A statement as `Prisma.sql` builds it: SQLite's placeholders in `sql`, PostgreSQL's in `text`. */
export interface BuiltStatement {
  sql: string;
  text: string;
  values: unknown[];
}

/**
 * A statement that answers one row of one text column: a value the database wrote whole (the
 * JSON of a page of pets, say), sent to the connected driver adapter of a Prisma client.
 */
export type TextRead = (statement: BuiltStatement) => Promise<string>;

/** The adapter a client's factory connected last, until the client disposes of it. */
export interface ConnectionRecord {
  current: SqlDriverAdapter | undefined;
}

function recordedAdapter(adapter: SqlDriverAdapter, record: ConnectionRecord): SqlDriverAdapter {
  const recorded: SqlDriverAdapter = {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => adapter.queryRaw(query),
    executeRaw: (query) => adapter.executeRaw(query),
    executeScript: (script) => adapter.executeScript(script),
    startTransaction: (isolationLevel) => adapter.startTransaction(isolationLevel),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => {
      if (record.current === recorded) record.current = undefined;
      return adapter.dispose();
    },
  };
  return recorded;
}

/** `factory`, whose connection of the moment `record` holds. */
export function connectionsRecorded(
  factory: SqlDriverAdapterFactory,
  record: ConnectionRecord,
): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      record.current = recordedAdapter(await factory.connect(), record);
      return record.current;
    },
  };
}

function scalarTypeOf(value: unknown): ArgScalarType {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'bigint') return 'bigint';
  if (typeof value === 'boolean') return 'boolean';
  if (value instanceof Date) return 'datetime';
  if (value instanceof Uint8Array) return 'bytes';
  return 'unknown';
}

/** The type an adapter converts a bound value by, as Prisma's client gives it for the same value. */
export function argTypeOf(value: unknown): ArgType {
  return Array.isArray(value)
    ? { scalarType: scalarTypeOf(value[0]), arity: 'list' }
    : { scalarType: scalarTypeOf(value), arity: 'scalar' };
}

/**
 * Text reads on the adapter `record` holds, connected through `connect` (the client's own
 * `$connect`) when it holds none yet. The adapter is the one the client's queries run on, with
 * everything its factory wraps around it: deadlines, the query observer, reply scheduling.
 */
export function textReader(
  record: ConnectionRecord,
  dialect: 'sqlite' | 'postgresql',
  connect: () => Promise<void>,
): TextRead {
  const connected = async () => {
    if (!record.current) await connect();
    if (!record.current) throw new Error('The Prisma client connected no driver adapter.');
    return record.current;
  };
  return async ({ sql, text, values }) => {
    const adapter = record.current ?? (await connected());
    const { rows, columnNames } = await adapter.queryRaw({
      sql: dialect === 'postgresql' ? text : sql,
      args: values,
      argTypes: values.map(argTypeOf),
    });
    const value = rows[0]?.[0];
    if (rows.length !== 1 || columnNames.length !== 1 || typeof value !== 'string') {
      throw new Error(
        `A text read answers one row of one text column, not ${rows.length} row(s) of ${columnNames.length} column(s).`,
      );
    }
    return value;
  };
}
