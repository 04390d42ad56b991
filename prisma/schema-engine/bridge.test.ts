import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAUNCHER = join(PACKAGE_ROOT, 'schema-engine', 'with-bridge.mjs');
const BRIDGE = join(PACKAGE_ROOT, 'schema-engine', 'bridge.mjs');

let folder: string;
let databaseFile: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'db-bridge-'));
  databaseFile = join(folder, 'test.db');
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Runs the Prisma CLI through the launcher, on the test's database. */
function prisma(args: string[], cwd = PACKAGE_ROOT) {
  const { PRISMA_SCHEMA_ENGINE_BINARY: _native, ...env } = process.env;
  const run = spawnSync(process.execPath, [LAUNCHER, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...env, DATABASE_URL: `file:${databaseFile}`, CHECKPOINT_DISABLE: '1' },
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Runs the bridge itself, as the CLI does, with `input` on its stdin. */
function bridge(args: string[], input = '') {
  const run = spawnSync(process.execPath, [BRIDGE, ...args], { encoding: 'utf8', input });
  return { code: run.status, stdout: run.stdout, stderrLines: run.stderr.trim().split('\n') };
}

async function tableNames(file = databaseFile) {
  const client = createClient({ url: `file:${file}` });
  try {
    const { rows } = await client.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    );
    return rows.map((row) => row.name);
  } finally {
    client.close();
  }
}

const APP_TABLES = [
  '_prisma_migrations',
  'api_keys',
  'idempotency_records',
  'pets',
  'server_secrets',
];

describe('the Prisma CLI through the bridge', () => {
  it('deploys the committed migrations and reports the status', async () => {
    const before = prisma(['migrate', 'status']);
    expect(before.code).toBe(1);
    expect(before.output).toContain('P1003');

    const deploy = prisma(['migrate', 'deploy']);
    expect(deploy.output).toContain('All migrations have been successfully applied.');
    expect(deploy.code).toBe(0);
    expect(await tableNames()).toEqual(APP_TABLES);

    const status = prisma(['migrate', 'status']);
    expect(status.output).toContain('Database schema is up to date!');
    expect(status.code).toBe(0);
  });

  it('detects a schema edited without a migration', async () => {
    const schema = await readFile(join(PACKAGE_ROOT, 'sqlite', 'schema.prisma'), 'utf8');
    const edited = join(folder, 'schema.prisma');
    await writeFile(edited, schema.replace(/(\n\s+status\s+String)/, '$1\n  nickname String?'));

    const check = ['migrate', 'diff', '--from-migrations', 'sqlite/migrations', '--exit-code'];
    const diff = prisma([...check, '--to-schema', edited]);
    expect(diff.output).toContain('Changed the `pets` table');
    expect(diff.output).toContain('Added column `nickname`');
    expect(diff.code).toBe(2);
  });

  it('resets to an empty database and re-applies the migrations', async () => {
    expect(prisma(['migrate', 'deploy']).code).toBe(0);
    const client = createClient({ url: `file:${databaseFile}` });
    await client.execute('CREATE TABLE stray (x INTEGER)');
    await client.execute('CREATE VIEW stray_view AS SELECT x FROM stray');
    client.close();

    const reset = prisma(['migrate', 'reset', '--force']);
    expect(reset.code).toBe(0);
    expect(await tableNames()).toEqual(APP_TABLES);
  });

  it('creates and applies a migration with migrate dev', async () => {
    // A copy of the package's Prisma files, so the new migration lands in the temp folder.
    const project = join(folder, 'project');
    await cp(join(PACKAGE_ROOT, 'sqlite'), join(project, 'sqlite'), { recursive: true });
    await cp(join(PACKAGE_ROOT, 'prisma.config.ts'), join(project, 'prisma.config.ts'));
    await symlink(join(PACKAGE_ROOT, 'node_modules'), join(project, 'node_modules'));
    const schemaFile = join(project, 'sqlite', 'schema.prisma');
    const schema = await readFile(schemaFile, 'utf8');
    // A new default makes SQLite redefine the table: a multi-statement migration.
    await writeFile(schemaFile, schema.replace(/(\n\s+name\s+String)/, '$1 @default("unnamed")'));

    const dev = prisma(['migrate', 'dev', '--name', 'default_name'], project);
    expect(dev.output).toContain('Your database is now in sync with your schema.');
    expect(dev.code).toBe(0);
    const created = (await readdir(join(project, 'sqlite', 'migrations'))).find((name) =>
      name.endsWith('_default_name'),
    );
    expect(created).toBeDefined();
    const script = await readFile(
      join(project, 'sqlite', 'migrations', String(created), 'migration.sql'),
      'utf8',
    );
    expect(script).toContain('CREATE TABLE "new_pets"');

    const again = prisma(['migrate', 'dev'], project);
    expect(again.output).toContain('Already in sync');
    expect(again.code).toBe(0);
  });
});

describe('the bridge protocol', () => {
  it('answers --version with the wasm engine commit', () => {
    const { code, stdout } = bridge(['--version']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^schema-engine-cli [0-9a-f]{40}\n$/);
  });

  it('reports a missing SQLite file as P1003 and creates it with its folder', async () => {
    const datasource = JSON.stringify({ url: `file:${join(folder, 'new', 'dev.db')}` });
    const missing = bridge(['--datasource', datasource, 'cli', 'can-connect-to-database']);
    expect(missing.code).toBe(1);
    // The CLI reads the lines after the first as JSON, looking for the error code.
    const errors = missing.stderrLines.slice(1).map((line) => JSON.parse(line));
    expect(errors).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        target: 'schema_engine::logger',
        fields: expect.objectContaining({ error_code: 'P1003' }),
      }),
    );

    expect(bridge(['--datasource', datasource, 'cli', 'create-database']).code).toBe(0);
    expect(bridge(['--datasource', datasource, 'cli', 'can-connect-to-database']).code).toBe(0);
  });

  it('answers JSON-RPC, prints diffs through the CLI and exits 101 on a panic', async () => {
    const schemaFile = join(PACKAGE_ROOT, 'sqlite', 'schema.prisma');
    const schema = { files: [{ path: schemaFile, content: await readFile(schemaFile, 'utf8') }] };
    const url = `file:${databaseFile}`;
    const version = { datasource: { tag: 'ConnectionString', url } };
    const requests = [
      { id: 1, jsonrpc: '2.0', method: 'getDatabaseVersion', params: version },
      {
        id: 2,
        jsonrpc: '2.0',
        method: 'diff',
        params: {
          from: { tag: 'empty' },
          to: { tag: 'schemaDatamodel', ...schema },
          script: true,
          exitCode: null,
          filters: { externalTables: [], externalEnums: [] },
        },
      },
      { id: 3, jsonrpc: '2.0', method: 'introspectEverything', params: {} },
      { id: 4, jsonrpc: '2.0', method: 'debugPanic' },
      { id: 5, jsonrpc: '2.0', method: 'getDatabaseVersion', params: version },
    ];
    const input = requests.map((request) => `${JSON.stringify(request)}\n`).join('');
    const { code, stdout } = bridge(['--datasource', JSON.stringify({ url })], input);

    const messages = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(messages).toEqual([
      { id: 1, jsonrpc: '2.0', result: expect.stringMatching(/^3\./) },
      {
        id: 'print-1',
        jsonrpc: '2.0',
        method: 'print',
        params: { content: expect.stringContaining('CREATE TABLE "pets"') },
      },
      { id: 2, jsonrpc: '2.0', result: { exitCode: 0, stdout: null } },
      {
        id: 3,
        jsonrpc: '2.0',
        error: expect.objectContaining({ data: expect.objectContaining({ is_panic: false }) }),
      },
      {
        id: 4,
        jsonrpc: '2.0',
        error: expect.objectContaining({
          message: expect.stringContaining('debugPanic artificial panic'),
          data: expect.objectContaining({ is_panic: true }),
        }),
      },
    ]);
    expect(code).toBe(101);
  });
});
