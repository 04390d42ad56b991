import type {
  ArgType,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import { adapterWith, factoryWrapping } from './wrapped-adapters.js';

/**
 * A statement as `Prisma.sql` builds it: SQLite's placeholders in `sql`, PostgreSQL's in `text`.
 */
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

/** `factory`, whose connection of the moment `record` holds. */
export function connectionsRecorded(
  factory: SqlDriverAdapterFactory,
  record: ConnectionRecord,
): SqlDriverAdapterFactory {
  return factoryWrapping(factory, (adapter) => {
    const recorded = adapterWith(adapter, {
      dispose: () => {
        if (record.current === recorded) record.current = undefined;
        return adapter.dispose();
      },
    });
    record.current = recorded;
    return recorded;
  });
}

/**
 * The values a text read binds: those both adapters take as they are, where Prisma's client
 * would first have converted others (a bigint or a date to text, an object to JSON).
 */
type BindableValue = string | number | null;

function argTypeOf(value: unknown): ArgType {
  const bindable = (item: unknown): item is BindableValue =>
    typeof item === 'string' || typeof item === 'number' || item === null;
  const scalarType = (item: BindableValue) => (typeof item === 'number' ? 'float' : 'string');
  if (Array.isArray(value) && value.every(bindable)) {
    return { scalarType: scalarType(value[0] ?? null), arity: 'list' };
  }
  if (bindable(value)) return { scalarType: scalarType(value), arity: 'scalar' };
  const kind = Object.prototype.toString.call(value);
  throw new TypeError(`A text read binds strings, numbers, null and lists of them, not ${kind}.`);
}

/**
 * Text reads on the adapter `record` holds, connected through `connect` (the client's own
 * `$connect`) when it holds none yet. The adapter is the one the client's queries run on, with
 * everything its factory wraps around it: deadlines, the query observer, reply scheduling.
 */
export function textReader(record: ConnectionRecord, connect: () => Promise<void>): TextRead {
  const connected = async () => {
    await connect();
    if (!record.current) throw new Error('The Prisma client connected no driver adapter.');
    return record.current;
  };
  return async ({ sql, text, values }) => {
    const adapter = record.current ?? (await connected());
    const { rows, columnNames } = await adapter.queryRaw({
      sql: adapter.provider === 'postgres' ? text : sql,
      args: values,
      argTypes: values.map(argTypeOf),
    });
    const value = rows[0]?.[0];
    if (rows.length !== 1 || columnNames.length !== 1 || typeof value !== 'string') {
      const shape = `${rows.length} row(s) of ${columnNames.length} column(s)`;
      throw new Error(
        `A text read answers one row of one text column, not ${shape}, the first a ${typeof value}.`,
      );
    }
    return value;
  };
}
