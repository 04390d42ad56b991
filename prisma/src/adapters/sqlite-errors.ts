/**
 * SQLite's errors as the errors of Prisma's driver-adapter contract, by the rules of
 * `@prisma/adapter-libsql`: Prisma turns the kinds into its own codes (a unique key is P2002, a
 * busy database P1008 …), and a plain `sqlite` kind keeps SQLite's extended result code
 * (https://www.sqlite.org/rescode.html) for whoever must tell a faulty database file apart.
 */
import { DriverAdapterError, type MappedError } from '@prisma/driver-adapter-utils';

/** The result codes mapped here, extended codes carrying their primary code in the low byte. */
const SQLITE_ERROR = 1;
const SQLITE_BUSY = 5;
const SQLITE_CANTOPEN = 14;
const SQLITE_CONSTRAINT_FOREIGNKEY = 787;
const SQLITE_CONSTRAINT_NOTNULL = 1299;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
/** A trigger's RAISE(ABORT …); adapter-libsql reports it as a foreign key, and so do we. */
const SQLITE_CONSTRAINT_TRIGGER = 1811;
const SQLITE_CONSTRAINT_UNIQUE = 2067;

const PRIMARY_CODE_MASK = 0xff;

/** What libsql's `SqliteError` carries: `rawCode` is the extended result code. */
interface SqliteErrorShape {
  code: string;
  rawCode?: unknown;
  message: string;
}

/**
 * libsql fails to open a database with no code but in its message, which ends in SQLite's:
 * `ConnectionFailed("Unable to open connection to local database /data/pets.db: 14")`.
 */
const CONNECTION_FAILED = /^ConnectionFailed\(".*: (\d+)"\)$/s;

function extendedCodeOf({ rawCode, message }: SqliteErrorShape): number {
  if (typeof rawCode === 'number') return rawCode;
  const connectionFailure = CONNECTION_FAILED.exec(message);
  return connectionFailure ? Number(connectionFailure[1]) : SQLITE_ERROR;
}

function isSqliteError(error: unknown): error is SqliteErrorShape {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as Partial<SqliteErrorShape>;
  return typeof code === 'string' && typeof message === 'string';
}

/** The `table.column`s a constraint message names: `… constraint failed: pets.name, pets.status`. */
function constrainedColumns(message: string): string[] | undefined {
  return message.split('constraint failed: ').at(1)?.split(', ');
}

function constraintOf(columns: string[] | undefined): { fields: string[] } | undefined {
  return columns && { fields: columns.map((column) => column.split('.').pop() ?? column) };
}

function tableOf(columns: string[] | undefined): string | undefined {
  return columns?.[0]?.split('.').slice(0, -1).join('.') || undefined;
}

function mappedError(extendedCode: number, message: string): MappedError {
  switch (extendedCode) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY: {
      const columns = constrainedColumns(message);
      return {
        kind: 'UniqueConstraintViolation',
        constraint: constraintOf(columns),
        table: tableOf(columns),
      };
    }
    case SQLITE_CONSTRAINT_NOTNULL:
      return {
        kind: 'NullConstraintViolation',
        constraint: constraintOf(constrainedColumns(message)),
      };
    case SQLITE_CONSTRAINT_FOREIGNKEY:
    case SQLITE_CONSTRAINT_TRIGGER:
      return { kind: 'ForeignKeyConstraintViolation', constraint: { foreignKey: {} } };
  }
  // Another connection held the lock past the busy timeout: the database is busy, not broken.
  if ((extendedCode & PRIMARY_CODE_MASK) === SQLITE_BUSY) return { kind: 'SocketTimeout' };
  if (message.startsWith('no such table')) {
    return { kind: 'TableDoesNotExist', table: message.split(': ').at(1) };
  }
  return { kind: 'sqlite', extendedCode, message };
}

/**
 * `error` as the DriverAdapterError Prisma reads when it is an error of SQLite's; anything else
 * (a bug, an argument libsql refused) as it is.
 */
export function fromSqliteError(error: unknown): unknown {
  if (!isSqliteError(error)) return error;
  const extendedCode = extendedCodeOf(error);
  return new DriverAdapterError({
    originalCode: String(extendedCode),
    originalMessage: error.message,
    ...mappedError(extendedCode, error.message),
  });
}

/** The error of a query while no database file is at `path`: SQLite's own for such a file. */
export function databaseFileGoneError(path: string): DriverAdapterError {
  return new DriverAdapterError({
    kind: 'sqlite',
    extendedCode: SQLITE_CANTOPEN,
    message: `the database file ${path} is gone`,
    originalCode: String(SQLITE_CANTOPEN),
    originalMessage: 'unable to open database file',
  });
}
