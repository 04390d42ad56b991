import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ColumnTypeEnum } from '@prisma/driver-adapter-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createDatabase,
  databaseExists,
  dropDatabase,
  postgresUrl,
  publicTables,
  query,
  uniqueDatabaseName,
} from '../src/test-fixtures/postgres.js';
import { postgresFlavor } from './postgresql.mjs';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAUNCHER = join(PACKAGE_ROOT, 'schema-engine', 'with-bridge.mjs');
const BRIDGE = join(PACKAGE_ROOT, 'schema-engine', 'bridge.mjs');
const APP_TABLES = [
  '_prisma_migrations',
  'api_keys',
  'idempotency_records',
  'pets',
  'server_secrets',
];

let databases: string[];
let database: string;
let folder: string;

beforeEach(async () => {
  database = uniqueDatabaseName();
  databases = [database];
  folder = await mkdtemp(join(tmpdir(), 'db-bridge-pg-'));
});

afterEach(async () => {
  for (const name of databases) await dropDatabase(name);
  await rm(folder, { recursive: true, force: true });
});

/** Runs the Prisma CLI through the launcher, on the test's database. */
function prisma(args: string[], { cwd = PACKAGE_ROOT, env = {} as Record<string, string> } = {}) {
  const {
    PRISMA_SCHEMA_ENGINE_BINARY: _native,
    SHADOW_DATABASE_URL: _shadow,
    ...rest
  } = process.env;
  const run = spawnSync(process.execPath, [LAUNCHER, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...rest, DATABASE_URL: postgresUrl(database), CHECKPOINT_DISABLE: '1', ...env },
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the Prisma CLI through the bridge, on PostgreSQL', () => {
  it('deploys the committed migrations and reports the status', async () => {
    const before = prisma(['migrate', 'status']);
    expect(before.output).toContain('P1003');
    expect(before.code).toBe(1);

    await createDatabase(database);
    const deploy = prisma(['migrate', 'deploy']);
    expect(deploy.output).toContain('All migrations have been successfully applied.');
    expect(deploy.code).toBe(0);
    expect(await publicTables(database)).toEqual(APP_TABLES);

    const status = prisma(['migrate', 'status']);
    expect(status.output).toContain('Database schema is up to date!');
    expect(status.code).toBe(0);
  });

  it('resets to an empty schema and re-applies the migrations', async () => {
    await createDatabase(database);
    expect(prisma(['migrate', 'deploy']).code).toBe(0);
    await query(database, 'CREATE TABLE stray (x integer)');
    await query(database, 'CREATE VIEW stray_view AS SELECT x FROM stray');
    await query(database, "INSERT INTO pets (name, category_id, status) VALUES ('Rex', 1, 'sold')");

    const reset = prisma(['migrate', 'reset', '--force']);
    expect(reset.code).toBe(0);
    expect(await publicTables(database)).toEqual(APP_TABLES);
    expect(await query(database, 'SELECT * FROM pets')).toEqual([]);
  });

  it('creates the database and a migration with migrate dev, on a given shadow database', async () => {
    const shadow = uniqueDatabaseName();
    databases.push(shadow);
    await createDatabase(shadow);
    await query(shadow, 'CREATE TABLE leftover (x integer)');

    const project = join(folder, 'project');
    await cp(join(PACKAGE_ROOT, 'postgresql'), join(project, 'postgresql'), { recursive: true });
    await cp(join(PACKAGE_ROOT, 'prisma.config.ts'), join(project, 'prisma.config.ts'));
    await symlink(join(PACKAGE_ROOT, 'node_modules'), join(project, 'node_modules'));
    const schemaFile = join(project, 'postgresql', 'schema.prisma');
    const schema = await readFile(schemaFile, 'utf8');
    await writeFile(schemaFile, schema.replace(/(\n\s+status\s+String)/, '$1\n  nickname String?'));

    const env = { SHADOW_DATABASE_URL: postgresUrl(shadow) };
    const dev = prisma(['migrate', 'dev', '--name', 'nickname'], { cwd: project, env });
    expect(dev.output).toContain('Your database is now in sync with your schema.');
    expect(dev.code).toBe(0);
    const created = (await readdir(join(project, 'postgresql', 'migrations'))).find((name) =>
      name.endsWith('_nickname'),
    );
    const script = await readFile(
      join(project, 'postgresql', 'migrations', String(created), 'migration.sql'),
      'utf8',
    );
    expect(script).toContain('ALTER TABLE "pets" ADD COLUMN     "nickname" TEXT');
    // The main database got every migration; the given shadow database was wiped, not dropped.
    expect(await publicTables(database)).toEqual(APP_TABLES);
    expect(await databaseExists(shadow)).toBe(true);
    expect(await publicTables(shadow)).not.toContain('leftover');

    const again = prisma(['migrate', 'dev'], { cwd: project, env });
    expect(again.output).toContain('Already in sync');
    expect(again.code).toBe(0);
  });
});

describe('the bridge protocol, on PostgreSQL', () => {
  it('reports a missing database as P1003 and creates it', async () => {
    const datasource = JSON.stringify({ url: postgresUrl(database) });
    const run = (command: string) =>
      spawnSync(process.execPath, [BRIDGE, '--datasource', datasource, 'cli', command], {
        encoding: 'utf8',
      });
    const missing = run('can-connect-to-database');
    expect(missing.status).toBe(1);
    const errors = missing.stderr
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line));
    expect(errors).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        target: 'schema_engine::logger',
        fields: expect.objectContaining({ error_code: 'P1003' }),
      }),
    );

    expect(run('create-database').status).toBe(0);
    expect(await databaseExists(database)).toBe(true);
    expect(run('can-connect-to-database').status).toBe(0);
    // Creating an existing database is not an error (migrateDatabase relies on it).
    expect(run('create-database').status).toBe(0);
  });
});

describe('postgresFlavor', () => {
  it('reads system types adapter-pg does not know, such as "char", as text', async () => {
    await createDatabase(database);
    const flavor = postgresFlavor(postgresUrl(database));
    try {
      const connection = await flavor.adapterFactory.connect();
      const result = await connection.queryRaw({
        sql: `SELECT 'r'::"char" AS kind, 'pg_class'::regclass AS class, NULL::void AS nothing, 1::int4 AS one`,
        args: [],
        argTypes: [],
      });
      expect(result.rows).toEqual([['r', 'pg_class', null, 1]]);
      // Known types keep their column type.
      const { Text, Int32 } = ColumnTypeEnum;
      expect(result.columnTypes).toEqual([Text, Text, Text, Int32]);
    } finally {
      await flavor.close();
    }
  });

  it('runs the shadow database beside the main one and drops it after closing its pool', async () => {
    await createDatabase(database);
    const flavor = postgresFlavor(postgresUrl(database));
    let shadowName = '';
    try {
      const shadow = await flavor.adapterFactory.connectToShadowDb();
      const { rows } = await shadow.queryRaw({
        sql: 'SELECT current_database()',
        args: [],
        argTypes: [],
      });
      shadowName = String(rows[0]?.[0]);
      expect(shadowName).toMatch(/^prisma_migrate_shadow_db_/);
      expect(await databaseExists(shadowName)).toBe(true);
      await shadow.dispose();
      expect(await databaseExists(shadowName)).toBe(false);
    } finally {
      await flavor.close();
    }
  });
});
