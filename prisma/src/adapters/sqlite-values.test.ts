// @module-tag node-runtime: libsql's native addon, loaded by Node
import {
  type ArgType,
  type ColumnType,
  ColumnTypeEnum,
  type SqlDriverAdapter,
} from '@prisma/driver-adapter-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLibsqlConnection } from './libsql-connection.js';
import {
  declaredColumnType,
  fromSqliteValue,
  inferredColumnType,
  toSqliteArgument,
} from './sqlite-values.js';

const INT32_MAX = 2n ** 31n - 1n;
const INT32_MIN = -(2n ** 31n);
const SAFE_MAX = 2n ** 53n - 1n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** Names with characters outside the Basic Multilingual Plane (two UTF-16 units each). */
const UNICODE_NAMES = ['Rex', 'Ünïcödé Ågne', '中文名', '🐕 Rex', '𝒳 𝔂 🐈‍⬛ 👩🏽‍🚀', 'עברית', ''];

const argType = (scalarType: ArgType['scalarType']): ArgType => ({ scalarType, arity: 'scalar' });

describe('declaredColumnType', () => {
  it.each<[string, ColumnType]>([
    ['INTEGER', ColumnTypeEnum.Int32],
    ['int', ColumnTypeEnum.Int32],
    ['BIGINT', ColumnTypeEnum.Int64],
    ['UNSIGNED BIG INT', ColumnTypeEnum.Int64],
    ['REAL', ColumnTypeEnum.Double],
    ['FLOAT', ColumnTypeEnum.Float],
    ['DECIMAL', ColumnTypeEnum.Numeric],
    ['TEXT', ColumnTypeEnum.Text],
    ['varchar', ColumnTypeEnum.Text],
    ['BLOB', ColumnTypeEnum.Bytes],
    ['BOOLEAN', ColumnTypeEnum.Boolean],
    ['DATETIME', ColumnTypeEnum.DateTime],
    ['DATE', ColumnTypeEnum.Date],
    ['TIME', ColumnTypeEnum.Time],
    ['JSONB', ColumnTypeEnum.Json],
  ])('reads a column declared %s as column type %i', (declared, type) => {
    expect(declaredColumnType(declared)).toBe(type);
  });

  it('leaves columns without a declared type Prisma knows to their values', () => {
    expect(declaredColumnType(null)).toBeNull();
    expect(declaredColumnType('')).toBeNull();
    expect(declaredColumnType('INTEGER UNSIGNED')).toBeNull();
  });
});

describe('inferredColumnType', () => {
  it('takes the type of the first value that is not NULL', () => {
    const rows = [
      [null, null],
      [null, 'text'],
      ['other', 1n],
    ];
    expect(inferredColumnType(rows, 0)).toBe(ColumnTypeEnum.Text);
    expect(inferredColumnType(rows, 1)).toBe(ColumnTypeEnum.Text);
  });

  it('reads integers a number holds exactly as numbers, larger ones as Int64', () => {
    expect(inferredColumnType([[SAFE_MAX]], 0)).toBe(ColumnTypeEnum.UnknownNumber);
    expect(inferredColumnType([[-SAFE_MAX]], 0)).toBe(ColumnTypeEnum.UnknownNumber);
    expect(inferredColumnType([[SAFE_MAX + 1n]], 0)).toBe(ColumnTypeEnum.Int64);
    expect(inferredColumnType([[INT64_MIN]], 0)).toBe(ColumnTypeEnum.Int64);
    expect(inferredColumnType([[1.5]], 0)).toBe(ColumnTypeEnum.UnknownNumber);
  });

  it('knows booleans and bytes, and calls a column of NULLs Int32 as Prisma does', () => {
    expect(inferredColumnType([[true]], 0)).toBe(ColumnTypeEnum.Boolean);
    expect(inferredColumnType([[new Uint8Array([1])]], 0)).toBe(ColumnTypeEnum.Bytes);
    expect(inferredColumnType([[new ArrayBuffer(1)]], 0)).toBe(ColumnTypeEnum.Bytes);
    expect(inferredColumnType([[null], [null]], 0)).toBe(ColumnTypeEnum.Int32);
    expect(inferredColumnType([], 0)).toBe(ColumnTypeEnum.Int32);
  });
});

describe('fromSqliteValue', () => {
  it.each([0n, 1n, -1n, INT32_MAX, INT32_MIN, INT32_MAX + 1n, SAFE_MAX, -SAFE_MAX])(
    'reads the integer %s as a number, exactly',
    (value) => {
      for (const type of [
        ColumnTypeEnum.Int32,
        ColumnTypeEnum.Int64,
        ColumnTypeEnum.UnknownNumber,
      ]) {
        expect(fromSqliteValue(value, type)).toBe(Number(value));
      }
    },
  );

  it.each([SAFE_MAX + 1n, -SAFE_MAX - 1n, INT64_MAX, INT64_MIN])(
    'reads the integer %s, past 2^53 − 1, as its decimal text',
    (value) => {
      expect(fromSqliteValue(value, ColumnTypeEnum.Int64)).toBe(value.toString());
    },
  );

  it('reads reals as they are, losing only the fraction in an integer column', () => {
    expect(fromSqliteValue(1.5, ColumnTypeEnum.Double)).toBe(1.5);
    expect(fromSqliteValue(-0.1, ColumnTypeEnum.UnknownNumber)).toBe(-0.1);
    expect(fromSqliteValue(2.9, ColumnTypeEnum.Int32)).toBe(2);
    expect(fromSqliteValue(-2.9, ColumnTypeEnum.Int64)).toBe(-2);
  });

  it('reads a number in a DateTime column as Unix milliseconds, and dates stored as text as they are', () => {
    const iso = '2026-11-25T20:00:00.123Z';
    const millis = Date.parse(iso);
    expect(fromSqliteValue(BigInt(millis), ColumnTypeEnum.DateTime)).toBe(iso);
    expect(fromSqliteValue(millis, ColumnTypeEnum.DateTime)).toBe(iso);
    expect(fromSqliteValue('2026-11-25T20:00:00.123+00:00', ColumnTypeEnum.DateTime)).toBe(
      '2026-11-25T20:00:00.123+00:00',
    );
  });

  it('reads NULL, text, booleans and bytes as they are, and an ArrayBuffer as bytes', () => {
    expect(fromSqliteValue(null, ColumnTypeEnum.Text)).toBeNull();
    for (const name of UNICODE_NAMES) expect(fromSqliteValue(name, ColumnTypeEnum.Text)).toBe(name);
    expect(fromSqliteValue(true, ColumnTypeEnum.Boolean)).toBe(true);
    const bytes = new Uint8Array([0, 1, 255]);
    expect(fromSqliteValue(bytes, ColumnTypeEnum.Bytes)).toBe(bytes);
    expect(fromSqliteValue(bytes.buffer, ColumnTypeEnum.Bytes)).toEqual(bytes);
  });
});

describe('toSqliteArgument', () => {
  it('binds NULL for null and undefined', () => {
    expect(toSqliteArgument(null, argType('int'))).toBeNull();
    expect(toSqliteArgument(undefined, undefined)).toBeNull();
  });

  it.each([INT64_MAX, INT64_MIN, SAFE_MAX, -1n])(
    'binds the 64-bit integer %s, sent as text, exactly',
    (value) => {
      expect(toSqliteArgument(value.toString(), argType('bigint'))).toBe(value);
    },
  );

  it('binds numbers, bigints, text and JSON as they are', () => {
    expect(toSqliteArgument(2_147_483_647, argType('int'))).toBe(2_147_483_647);
    expect(toSqliteArgument(INT64_MAX, argType('bigint'))).toBe(INT64_MAX);
    expect(toSqliteArgument(0.5, argType('float'))).toBe(0.5);
    for (const name of UNICODE_NAMES) expect(toSqliteArgument(name, argType('string'))).toBe(name);
    expect(toSqliteArgument('{"a":[1]}', argType('json'))).toBe('{"a":[1]}');
    expect(toSqliteArgument('available', argType('enum'))).toBe('available');
    expect(toSqliteArgument('untyped', undefined)).toBe('untyped');
  });

  it('binds decimals as reals and booleans as 1 and 0', () => {
    expect(toSqliteArgument('12.25', argType('decimal'))).toBe(12.25);
    expect(toSqliteArgument(true, argType('boolean'))).toBe(1);
    expect(toSqliteArgument(false, argType('boolean'))).toBe(0);
  });

  it('binds dates as ISO 8601 text with an explicit UTC offset, as Prisma’s SQLite adapters do', () => {
    const expected = '2026-11-25T20:00:00.123+00:00';
    expect(toSqliteArgument(new Date('2026-11-25T20:00:00.123Z'), argType('datetime'))).toBe(
      expected,
    );
    expect(toSqliteArgument('2026-11-25T20:00:00.123Z', argType('datetime'))).toBe(expected);
  });

  it('binds bytes sent as base64 as bytes', () => {
    expect(toSqliteArgument('AAH/', argType('bytes'))).toEqual(Buffer.from([0, 1, 255]));
  });
});

describe('values through a SQLite connection, both ways', () => {
  let connection: SqlDriverAdapter;

  beforeEach(async () => {
    connection = openLibsqlConnection(':memory:', { busyTimeoutMs: 0 });
    await connection.executeScript(`CREATE TABLE every_type (
      id INTEGER PRIMARY KEY, int32 INTEGER, int64 BIGINT, real REAL, decimal DECIMAL,
      text TEXT, bytes BLOB, flag BOOLEAN, moment DATETIME, document JSONB
    )`);
  });

  afterEach(async () => {
    await connection.dispose();
  });

  const insert = (id: number, column: string, value: unknown, type: ArgType) =>
    connection.executeRaw({
      sql: `INSERT INTO every_type (id, ${column}) VALUES (?, ?)`,
      args: [id, value],
      argTypes: [argType('int'), type],
    });

  const read = async (id: number, column: string) => {
    const { columnTypes, rows } = await connection.queryRaw({
      sql: `SELECT ${column} FROM every_type WHERE id = ?`,
      args: [id],
      argTypes: [argType('int')],
    });
    return { type: columnTypes[0], value: rows[0]?.[0] };
  };

  it.each([
    ['int32', 0, INT32_MAX, ColumnTypeEnum.Int32, Number(INT32_MAX)],
    ['int32', 1, INT32_MIN, ColumnTypeEnum.Int32, Number(INT32_MIN)],
    ['int64', 2, SAFE_MAX.toString(), ColumnTypeEnum.Int64, Number(SAFE_MAX)],
    ['int64', 3, (-SAFE_MAX).toString(), ColumnTypeEnum.Int64, -Number(SAFE_MAX)],
    ['int64', 4, INT64_MAX.toString(), ColumnTypeEnum.Int64, INT64_MAX.toString()],
    ['int64', 5, INT64_MIN.toString(), ColumnTypeEnum.Int64, INT64_MIN.toString()],
  ] as const)('stores %s %s and reads it back exactly', async (column, id, sent, type, read_) => {
    await insert(id, column, sent, argType(column === 'int32' ? 'int' : 'bigint'));
    expect(await read(id, column)).toEqual({ type, value: read_ });
  });

  it('stores reals, decimals, booleans, dates, bytes and JSON and reads them back', async () => {
    await insert(1, 'real', 0.1, argType('float'));
    await insert(2, 'decimal', '12.25', argType('decimal'));
    await insert(3, 'flag', true, argType('boolean'));
    await insert(4, 'moment', new Date('2026-11-25T20:00:00.123Z'), argType('datetime'));
    await insert(5, 'bytes', 'AAH/', argType('bytes'));
    await insert(6, 'document', '{"tags":["🐕"]}', argType('json'));

    expect(await read(1, 'real')).toEqual({ type: ColumnTypeEnum.Double, value: 0.1 });
    expect(await read(2, 'decimal')).toEqual({ type: ColumnTypeEnum.Numeric, value: 12.25 });
    // SQLite has no booleans: Prisma reads the 1 of a Boolean column as true.
    expect(await read(3, 'flag')).toEqual({ type: ColumnTypeEnum.Boolean, value: 1 });
    expect(await read(4, 'moment')).toEqual({
      type: ColumnTypeEnum.DateTime,
      value: '2026-11-25T20:00:00.123+00:00',
    });
    const bytes = await read(5, 'bytes');
    expect(bytes.type).toBe(ColumnTypeEnum.Bytes);
    expect(Uint8Array.from(bytes.value as Uint8Array)).toEqual(new Uint8Array([0, 1, 255]));
    expect(await read(6, 'document')).toEqual({
      type: ColumnTypeEnum.Json,
      value: '{"tags":["🐕"]}',
    });
  });

  it('stores NULL in a column of every type and reads it as null', async () => {
    await insert(1, 'text', null, argType('string'));
    const { columnTypes, rows } = await connection.queryRaw({
      sql: 'SELECT int32, int64, real, decimal, text, bytes, flag, moment, document FROM every_type',
      args: [],
      argTypes: [],
    });
    expect(rows).toEqual([Array(9).fill(null)]);
    expect(columnTypes).not.toContain(ColumnTypeEnum.UnknownNumber);
  });

  it('stores Unicode names, astral characters included, and reads them back unchanged', async () => {
    for (const [id, name] of UNICODE_NAMES.entries())
      await insert(id, 'text', name, argType('string'));
    const { rows } = await connection.queryRaw({
      sql: 'SELECT text, length(text) FROM every_type ORDER BY id',
      args: [],
      argTypes: [],
    });
    // SQLite counts characters, not UTF-16 units: the text arrived whole, not as surrogates.
    expect(rows).toEqual(UNICODE_NAMES.map((name) => [name, [...name].length]));
  });

  it('stores text up to its first NUL: a NUL ends text in libsql, which is why the server escapes it', async () => {
    await insert(1, 'text', 'before\0after', argType('string'));
    expect(await read(1, 'text')).toEqual({ type: ColumnTypeEnum.Text, value: 'before' });
  });

  it('types an expression column by its values: numbers, text, or Int64 past 2^53 − 1', async () => {
    const { columnTypes, rows } = await connection.queryRaw({
      sql: `SELECT 42 AS small, ${INT64_MAX} AS large, 'x' AS word, 0.5 AS half, NULL AS absent`,
      args: [],
      argTypes: [],
    });
    expect(columnTypes).toEqual([
      ColumnTypeEnum.UnknownNumber,
      ColumnTypeEnum.Int64,
      ColumnTypeEnum.Text,
      ColumnTypeEnum.UnknownNumber,
      ColumnTypeEnum.Int32,
    ]);
    expect(rows).toEqual([[42, INT64_MAX.toString(), 'x', 0.5, null]]);
  });
});
