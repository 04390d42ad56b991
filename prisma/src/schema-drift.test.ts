/**
 * The no-drift check. Prisma takes one provider per schema, so the database has two schemas,
 * sqlite/ and postgresql/, each with its migration history; the data module is written once
 * against one client type (DatabaseClient). This fails when the two schemas' models differ
 * (but for the one allowed difference below), or when a migration history does not produce its
 * schema.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as postgresClient from '../generated/postgresql/client.js';
import * as sqliteClient from '../generated/sqlite/client.js';
import {
  createDatabase,
  dropDatabase,
  postgresUrl,
  uniqueDatabaseName,
} from './test-fixtures/postgres.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAUNCHER = join(PACKAGE_ROOT, 'schema-engine', 'with-bridge.mjs');
const readSchema = (provider: string) =>
  readFileSync(join(PACKAGE_ROOT, provider, 'schema.prisma'), 'utf8');

/**
 * The one line the schemas may differ in. Pet ids are 64-bit on both databases, but Prisma cannot
 * autoincrement a BigInt id on SQLite (prisma/prisma#13178: it renders `BIGINT NOT NULL PRIMARY
 * KEY`, which is no alias of the rowid, and inserts fail), so SQLite's is an Int: an INTEGER
 * PRIMARY KEY, 64-bit there all the same. PostgreSQL's must be a BigInt to be a bigint column.
 * So the shared client type says `number` where the PostgreSQL client returns a `bigint`: the
 * data code turns Pet ids into numbers where it reads them.
 */
const ALLOWED_DIFFERENCE = {
  block: 'model Pet',
  sqlite: 'id Int @id @default(autoincrement())',
  postgresql: 'id BigInt @id @default(autoincrement())',
} as const;

/**
 * The PostgreSQL schema's models with the allowed difference put back as SQLite has it; throws
 * if the difference is not there, so that the exception cannot outlive its reason unnoticed.
 */
function withAllowedDifferenceUndone(models: Record<string, string[]>): Record<string, string[]> {
  const { block, sqlite, postgresql } = ALLOWED_DIFFERENCE;
  const lines = models[block] ?? [];
  if (!lines.includes(postgresql)) {
    throw new Error(`The allowed difference is gone: ${block} has no line "${postgresql}".`);
  }
  return { ...models, [block]: lines.map((line) => (line === postgresql ? sqlite : line)) };
}

/** A schema line without its `//` comment (quotes respected) and with single spaces. */
function normalizeLine(line: string): string {
  let code = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '"' && line[i - 1] !== '\\') quoted = !quoted;
    if (!quoted && line.startsWith('//', i)) break;
    code += char;
  }
  return code.trim().replace(/\s+/g, ' ');
}

/**
 * The model, enum and type blocks of a Prisma schema, by name, each as its normalized lines
 * in order; the datasource and generator blocks, comments and blank lines are left out.
 */
export function schemaModels(schema: string): Record<string, string[]> {
  const blocks: Record<string, string[]> = {};
  let inBlock = false;
  let current: string[] | undefined;
  for (const line of schema.split('\n').map(normalizeLine)) {
    if (line === '') continue;
    const opening = /^(model|enum|type|view|datasource|generator) (\w+) \{$/.exec(line);
    if (opening) {
      const [, kind, name] = opening;
      inBlock = true;
      current = kind === 'datasource' || kind === 'generator' ? undefined : [];
      if (current) blocks[`${kind} ${name}`] = current;
    } else if (line === '}') {
      inBlock = false;
      current = undefined;
    } else if (!inBlock) {
      throw new Error(`Unexpected line outside a block: ${line}`);
    } else {
      current?.push(line);
    }
  }
  return blocks;
}

describe('the SQLite and PostgreSQL schemas', () => {
  it('define the same models, fields, types, attributes and table names, but for Pet.id', () => {
    const sqlite = schemaModels(readSchema('sqlite'));
    expect(Object.keys(sqlite)).toContain('model Pet');
    expect(withAllowedDifferenceUndone(schemaModels(readSchema('postgresql')))).toEqual(sqlite);
  });

  it('fail the comparison when a field is added to one schema only', () => {
    const schema = readSchema('postgresql');
    const edited = schema.replace(/(\n\s+status\s+String)/, '$1\n  nickname String?');
    expect(edited).not.toBe(schema);
    const sqlite = schemaModels(readSchema('sqlite'));
    expect(withAllowedDifferenceUndone(schemaModels(edited))).not.toEqual(sqlite);
    const renamed = schema.replace('@@map("pets")', '@@map("pet")');
    expect(withAllowedDifferenceUndone(schemaModels(renamed))).not.toEqual(sqlite);
  });

  it('allow only Pet.id to differ, and only as Int on SQLite and BigInt on PostgreSQL', () => {
    const schema = readSchema('postgresql');
    for (const [from, to] of [
      [/(\n\s+id\s+)BigInt/, '$1Int'],
      [/(\n\s+id\s+BigInt\s+@id) @default\(autoincrement\(\)\)/, '$1'],
    ] as const) {
      const edited = schema.replace(from, to);
      expect(edited).not.toBe(schema);
      expect(() => withAllowedDifferenceUndone(schemaModels(edited))).toThrow(
        /allowed difference is gone/,
      );
    }
    const narrowed = schema.replace(/(\n\s+perDay\s+)BigInt/, '$1Int');
    expect(narrowed).not.toBe(schema);
    expect(withAllowedDifferenceUndone(schemaModels(narrowed))).not.toEqual(
      schemaModels(readSchema('sqlite')),
    );
  });

  it('ignore comments, spacing, and the datasource and generator blocks', () => {
    const schema = readSchema('sqlite');
    const reformatted = schema
      .replace('provider = "sqlite"', 'provider = "postgresql"')
      .replace(/(\n\s+name\s+)String/, '$1   String // a comment');
    expect(schemaModels(reformatted)).toEqual(schemaModels(schema));
  });

  it('generate clients with the same models and fields', () => {
    expect(postgresClient.Prisma.ModelName).toEqual(sqliteClient.Prisma.ModelName);
    const fieldEnums = (namespace: object) =>
      Object.fromEntries(
        Object.entries(namespace).filter(([name]) => name.endsWith('ScalarFieldEnum')),
      );
    expect(fieldEnums(postgresClient.Prisma)).toEqual(fieldEnums(sqliteClient.Prisma));
    // The cast in createPrismaClient relies on this; `tsc` checks it. Pet.id is the allowed
    // difference (see ALLOWED_DIFFERENCE): a bigint from PostgreSQL, a number from SQLite.
    expectTypeOf<Omit<postgresClient.Pet, 'id'>>().toEqualTypeOf<Omit<sqliteClient.Pet, 'id'>>();
    expectTypeOf<postgresClient.Pet['id']>().toEqualTypeOf<bigint>();
    expectTypeOf<sqliteClient.Pet['id']>().toEqualTypeOf<number>();
    expectTypeOf<postgresClient.IdempotencyRecord>().toEqualTypeOf<sqliteClient.IdempotencyRecord>();
    expectTypeOf<postgresClient.ServerSecret>().toEqualTypeOf<sqliteClient.ServerSecret>();
    expectTypeOf<postgresClient.ApiKey>().toEqualTypeOf<sqliteClient.ApiKey>();
  });
});

describe('each migration history', () => {
  let database: string;

  beforeAll(async () => {
    // The PostgreSQL diff replays the migrations on a shadow database created from this one.
    database = uniqueDatabaseName();
    await createDatabase(database);
  });

  afterAll(async () => {
    await dropDatabase(database);
  });

  /** `migrate diff` from the committed migrations to the schema, through the bridge. */
  function diff(provider: string, databaseUrl: string, schemaFile?: string) {
    const { PRISMA_SCHEMA_ENGINE_BINARY: _native, ...env } = process.env;
    const args = ['migrate', 'diff', '--from-migrations', `${provider}/migrations`, '--exit-code'];
    const run = spawnSync(
      process.execPath,
      [LAUNCHER, ...args, '--to-schema', schemaFile ?? `${provider}/schema.prisma`],
      {
        cwd: PACKAGE_ROOT,
        encoding: 'utf8',
        env: { ...env, DATABASE_URL: databaseUrl, CHECKPOINT_DISABLE: '1' },
      },
    );
    return { code: run.status, output: `${run.stdout}${run.stderr}` };
  }

  it('produces the SQLite schema', () => {
    const result = diff('sqlite', 'file::memory:');
    // The CLI exits 0 with no output when its engine dies, so the message is what counts.
    expect(result.output).toContain('No difference detected.');
    expect(result.code).toBe(0);
  });

  it('produces the PostgreSQL schema', () => {
    const result = diff('postgresql', postgresUrl(database));
    expect(result.output).toContain('No difference detected.');
    expect(result.code).toBe(0);
  });
});
