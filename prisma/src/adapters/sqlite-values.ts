/**
 * Values between SQLite (as libsql's native API hands them over, integers as bigints) and
 * Prisma's driver-adapter contract, converted as `@prisma/adapter-libsql` converts them where
 * the contract leaves a choice, so that rows written by either adapter read alike.
 */
import { type ArgType, type ColumnType, ColumnTypeEnum } from '@prisma/driver-adapter-utils';

/** SQLite's declared column type names, by the column type Prisma reads each as. */
const DECLARED_TYPE_NAMES: ReadonlyArray<readonly [ColumnType, readonly string[]]> = [
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

const COLUMN_TYPES_BY_DECLARED_TYPE: ReadonlyMap<string, ColumnType> = new Map(
  DECLARED_TYPE_NAMES.flatMap(([type, names]) => names.map((name) => [name, type] as const)),
);

/**
 * The column type of a column declared as `declaredType`; null for a column without one (an
 * expression) or with a name Prisma does not know, whose type its values tell (inferredColumnType).
 */
export function declaredColumnType(declaredType: string | null): ColumnType | null {
  return COLUMN_TYPES_BY_DECLARED_TYPE.get((declaredType ?? '').toUpperCase()) ?? null;
}

function isSafeInteger(value: bigint): boolean {
  return value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER;
}

/**
 * The type of column `column` of `rows`, a column without a declared type, from its first value
 * that is not NULL: Int32 when every value is NULL, as Prisma's own SQLite adapters answer.
 */
export function inferredColumnType(
  rows: readonly (readonly unknown[])[],
  column: number,
): ColumnType {
  for (const row of rows) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') return ColumnTypeEnum.Text;
    if (typeof value === 'bigint') {
      // A number reads exactly where one can; past 2^53 only Int64 keeps every digit.
      return isSafeInteger(value) ? ColumnTypeEnum.UnknownNumber : ColumnTypeEnum.Int64;
    }
    if (typeof value === 'number') return ColumnTypeEnum.UnknownNumber;
    if (typeof value === 'boolean') return ColumnTypeEnum.Boolean;
    if (value instanceof Uint8Array || value instanceof ArrayBuffer) return ColumnTypeEnum.Bytes;
  }
  return ColumnTypeEnum.Int32;
}

/**
 * A value of a column of type `type` as Prisma reads it. Integers, exact to 64 bits as bigints,
 * leave as numbers where a number holds them exactly, else as decimal text (which Prisma parses
 * into a bigint for an Int64 column); an integer or a real in a DateTime column is Unix
 * milliseconds; a real in an integer column loses its fraction.
 */
export function fromSqliteValue(value: unknown, type: ColumnType): unknown {
  if (typeof value === 'bigint') {
    if (type === ColumnTypeEnum.DateTime) return new Date(Number(value)).toISOString();
    return isSafeInteger(value) ? Number(value) : value.toString();
  }
  if (typeof value === 'number') {
    if (type === ColumnTypeEnum.DateTime) return new Date(value).toISOString();
    if (type === ColumnTypeEnum.Int32 || type === ColumnTypeEnum.Int64) return Math.trunc(value);
  }
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return value;
}

/** A date as Prisma's own SQLite adapters write one: ISO 8601 with an explicit UTC offset. */
function toSqliteDate(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

/**
 * An argument of type `argType` as SQLite stores it. Prisma sends 64-bit integers, decimals,
 * dates and bytes as text (bytes in base64); booleans are stored as 0 and 1, as SQLite has none.
 */
export function toSqliteArgument(arg: unknown, argType: ArgType | undefined): unknown {
  if (arg === null || arg === undefined) return null;
  if (typeof arg === 'string') {
    switch (argType?.scalarType) {
      case 'bigint':
        return BigInt(arg);
      case 'decimal':
        return Number.parseFloat(arg);
      case 'datetime':
        return toSqliteDate(new Date(arg));
      case 'bytes':
        return Buffer.from(arg, 'base64');
      default:
        return arg;
    }
  }
  if (arg instanceof Date) return toSqliteDate(arg);
  if (typeof arg === 'boolean') return arg ? 1 : 0;
  return arg;
}
