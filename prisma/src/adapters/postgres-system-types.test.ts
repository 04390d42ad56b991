import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isUnmappedSystemType, reportUnknownSystemTypesAsText } from './postgres-system-types.js';

const { builtins } = pg.types;
const CHAR_OID = 18;
const REGCLASS_OID = 2205;
const FIRST_USER_TYPE_OID = 16_384;

describe('isUnmappedSystemType', () => {
  it('is true of the system types adapter-pg refuses', () => {
    expect(isUnmappedSystemType(CHAR_OID)).toBe(true);
    expect(isUnmappedSystemType(REGCLASS_OID)).toBe(true);
  });

  it('is false of the types adapter-pg maps, arrays included, and of user-defined types', () => {
    for (const oid of [
      builtins.INT4,
      builtins.INT8,
      builtins.TEXT,
      builtins.TIMESTAMPTZ,
      19,
      1009,
    ]) {
      expect(isUnmappedSystemType(oid)).toBe(false);
    }
    // An enum or a domain: adapter-pg has its own way with those.
    expect(isUnmappedSystemType(FIRST_USER_TYPE_OID)).toBe(false);
  });
});

describe('reportUnknownSystemTypesAsText', () => {
  const field = (dataTypeID: number) => ({ name: 'column', dataTypeID });

  it('relabels unmapped system types as text and leaves the rest as they are', () => {
    const result = { fields: [field(CHAR_OID), field(builtins.INT8), field(FIRST_USER_TYPE_OID)] };
    expect(reportUnknownSystemTypesAsText(result)).toBe(result);
    expect(result.fields.map((column) => column.dataTypeID)).toEqual([
      builtins.TEXT,
      builtins.INT8,
      FIRST_USER_TYPE_OID,
    ]);
  });

  it('relabels every result of a multi-statement query, and passes results without fields', () => {
    const results = [{ fields: [field(REGCLASS_OID)] }, {}];
    reportUnknownSystemTypesAsText(results);
    expect(results[0]?.fields?.[0]?.dataTypeID).toBe(builtins.TEXT);
    expect(reportUnknownSystemTypesAsText(undefined)).toBeUndefined();
  });
});
