// @module-tag node-runtime: the migrator runs Prisma's schema engine as WebAssembly in Node
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateDatabase } from './migrate.js';

const MIGRATIONS = fileURLToPath(new URL('../sqlite/migrations', import.meta.url));
const MIGRATE_MODULE = fileURLToPath(new URL('./migrate.ts', import.meta.url));
const run = promisify(execFile);
const committedMigrations = readdirSync(MIGRATIONS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'db-migrate-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function inspect(file: string) {
  const client = createClient({ url: `file:${file}` });
  try {
    const tables = await client.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    );
    const history = await client.execute(
      'SELECT migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name',
    );
    return {
      tables: tables.rows.map((row) => row.name),
      history: history.rows.map((row) => ({ name: row.migration_name, finished: row.finished })),
    };
  } finally {
    client.close();
  }
}

describe('migrateDatabase', () => {
  it('creates the database file and its folders, and applies every committed migration', async () => {
    const file = join(folder, 'not', 'yet', 'there.db');
    await migrateDatabase(`file:${file}`);

    expect(existsSync(file)).toBe(true);
    expect(await inspect(file)).toEqual({
      tables: ['_prisma_migrations', 'api_keys', 'idempotency_records', 'pets', 'server_secrets'],
      history: committedMigrations.map((name) => ({ name, finished: 1 })),
    });
  });

  it('lets instances starting together on a new file all succeed, migrating it once', async () => {
    const file = join(folder, 'shared.db');
    await Promise.all(Array.from({ length: 4 }, () => migrateDatabase(`file:${file}`)));
    expect(await inspect(file)).toEqual({
      tables: ['_prisma_migrations', 'api_keys', 'idempotency_records', 'pets', 'server_secrets'],
      history: committedMigrations.map((name) => ({ name, finished: 1 })),
    });
  });

  it('lets processes starting together on a new file all succeed, migrating it once', async () => {
    const file = join(folder, 'shared.db');
    const go = join(folder, 'go');
    // Each process loads the migrator, says it is ready, and waits for the others to be.
    const script = (index: number) => `
      import { existsSync, writeFileSync } from 'node:fs';
      const { migrateDatabase } = await import(${JSON.stringify(MIGRATE_MODULE)});
      writeFileSync(${JSON.stringify(join(folder, `ready-${index}`))}, '');
      while (!existsSync(${JSON.stringify(go)})) await new Promise((resolve) => setTimeout(resolve, 5));
      await migrateDatabase(${JSON.stringify(`file:${file}`)});`;
    const processes = [0, 1, 2, 3].map((index) =>
      run(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script(index)]),
    );
    while ([0, 1, 2, 3].some((index) => !existsSync(join(folder, `ready-${index}`)))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await writeFile(go, '');
    await Promise.all(processes);
    expect(await inspect(file)).toEqual({
      tables: ['_prisma_migrations', 'api_keys', 'idempotency_records', 'pets', 'server_secrets'],
      history: committedMigrations.map((name) => ({ name, finished: 1 })),
    });
  }, 60_000);

  it('is idempotent and keeps the data', async () => {
    const file = join(folder, 'twice.db');
    await migrateDatabase(`file:${file}`);
    const client = createClient({ url: `file:${file}` });
    await client.execute(
      "INSERT INTO pets (name, category_id, status, created_at) VALUES ('Rex', 1, 'available', '2024-01-01T00:00:00.000+00:00')",
    );
    client.close();

    const before = await inspect(file);
    await migrateDatabase(`file:${file}`);
    await migrateDatabase(`file:${file}`);
    expect(await inspect(file)).toEqual(before);

    const after = createClient({ url: `file:${file}` });
    expect((await after.execute('SELECT name FROM pets')).rows.map((row) => row.name)).toEqual([
      'Rex',
    ]);
    after.close();
  });

  it('migrates on after a second copy of the engine loader has loaded the engine, as a test runner with several projects loads one each', async () => {
    await migrateDatabase(`file:${join(folder, 'first.db')}`);
    const loader = new URL('../schema-engine/wasm-engine.mjs', import.meta.url);
    const copy = await import(/* @vite-ignore */ `${loader.href}?copy`);
    await copy.loadSchemaEngineWasm();
    const file = join(folder, 'after-the-copy.db');
    await migrateDatabase(`file:${file}`);
    expect((await inspect(file)).history).toHaveLength(committedMigrations.length);
  });

  it('refuses URLs it has no adapter for', async () => {
    await expect(migrateDatabase('mysql://localhost/pets')).rejects.toThrow(
      'Unsupported database URL',
    );
  });
});
