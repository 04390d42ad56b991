/**
 * PostgreSQL system types that `@prisma/adapter-pg` does not map, reported as text. adapter-pg
 * 7.10 refuses every system type (OID < 16384) its `fieldToColumnType` lacks with "Unsupported
 * column type", even those pg returns as plain strings, such as the internal `"char"` (OID 18)
 * the schema engine's schema reader selects.
 */
import pg from 'pg';

const FIRST_NORMAL_OBJECT_ID = 16_384;
const TEXT_OID = 25;

const MAPPED_BUILTIN_TYPES = [
  'INT2',
  'INT4',
  'INT8',
  'FLOAT4',
  'FLOAT8',
  'BOOL',
  'DATE',
  'TIME',
  'TIMETZ',
  'TIMESTAMP',
  'TIMESTAMPTZ',
  'NUMERIC',
  'MONEY',
  'JSON',
  'JSONB',
  'UUID',
  'OID',
  'BPCHAR',
  'TEXT',
  'VARCHAR',
  'BIT',
  'VARBIT',
  'INET',
  'CIDR',
  'XML',
  'BYTEA',
] as const satisfies ReadonlyArray<keyof typeof pg.types.builtins>;

const NAME_OID = 19;

/** The array types adapter-pg maps, which pg's builtins do not name. */
const MAPPED_ARRAY_TYPE_OIDS = [
  1561, 1000, 1001, 1014, 1002, 651, 1182, 1021, 1022, 1041, 1005, 1007, 1016, 3807, 199, 791, 1231,
  1028, 1009, 1115, 1185, 1183, 2951, 1563, 1015, 143,
];

/** The type OIDs adapter-pg 7.10 maps to a column type (its `fieldToColumnType`). */
const ADAPTER_PG_TYPE_OIDS: ReadonlySet<number> = new Set([
  ...MAPPED_BUILTIN_TYPES.map((name) => pg.types.builtins[name]),
  NAME_OID,
  ...MAPPED_ARRAY_TYPE_OIDS,
]);

/** Whether adapter-pg would refuse a column of type `oid`, which is text by then (see below). */
export function isUnmappedSystemType(oid: number): boolean {
  return oid < FIRST_NORMAL_OBJECT_ID && !ADAPTER_PG_TYPE_OIDS.has(oid);
}

interface ResultFields {
  fields?: Array<{ dataTypeID: number }>;
}

/**
 * `result` (a pg result, or an array of them for a multi-statement query), its system types
 * adapter-pg does not map relabelled as text. pg parses values by their real type before this
 * runs, and it returns most of those types (`"char"`, `regclass`, `regtype` …) as strings, so
 * text is what they are by then. (Not `interval`, which pg parses into an object: no query of
 * ours selects one.)
 */
export function reportUnknownSystemTypesAsText<Result>(result: Result): Result {
  for (const one of Array.isArray(result) ? result : [result]) {
    for (const field of (one as ResultFields | undefined)?.fields ?? []) {
      if (isUnmappedSystemType(field.dataTypeID)) field.dataTypeID = TEXT_OID;
    }
  }
  return result;
}
