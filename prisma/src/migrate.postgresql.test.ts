import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateDatabase } from './migrate.js';
import {
  databaseExists,
  dropDatabase,
  postgresUrl,
  publicTables,
  query,
  uniqueDatabaseName,
} from './test-fixtures/postgres.js';

const MIGRATIONS = fileURLToPath(new URL('../postgresql/migrations', import.meta.url));
const MIGRATE_MODULE = fileURLToPath(new URL('./migrate.ts', import.meta.url));
const run = promisify(execFile);
const committedMigrations = readdirSync(MIGRATIONS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

let database: string;

beforeEach(() => {
  database = uniqueDatabaseName();
});

afterEach(async () => {
  await dropDatabase(database);
});

async function inspect() {
  const history = await query<{ migration_name: string; finished: boolean }>(
    database,
    'SELECT migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name',
  );
  return {
    tables: await publicTables(database),
    history: history.map((row) => ({ name: row.migration_name, finished: row.finished })),
  };
}

describe('migrateDatabase on PostgreSQL', () => {
  it('creates the database and applies every committed migration, idempotently', async () => {
    expect(await databaseExists(database)).toBe(false);
    await migrateDatabase(postgresUrl(database));

    const migrated = await inspect();
    expect(migrated).toEqual({
      tables: ['_prisma_migrations', 'api_keys', 'idempotency_records', 'pets', 'server_secrets'],
      history: committedMigrations.map((name) => ({ name, finished: true })),
    });

    await query(database, "INSERT INTO pets (name, category_id, status) VALUES ('Rex', 1, 'sold')");
    await migrateDatabase(postgresUrl(database));
    await migrateDatabase(postgresUrl(database));
    expect(await inspect()).toEqual(migrated);
    expect(await query(database, 'SELECT name FROM pets')).toEqual([{ name: 'Rex' }]);
  });

  it('leaves nothing behind that keeps a finished process alive', async () => {
    // A process of its own, so that only what migrating left is there to see.
    const script = `
      const { migrateDatabase } = await import(${JSON.stringify(MIGRATE_MODULE)});
      await migrateDatabase(${JSON.stringify(postgresUrl(database))});
      console.log(JSON.stringify(process.getActiveResourcesInfo()));`;
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '--eval',
      script,
    ]);
    expect(JSON.parse(stdout)).not.toContain('Timeout');
  });

  it('fails, rather than waits for ever, on a database server that accepts and never answers', async () => {
    const held: Socket[] = [];
    const silent = createServer((socket) => {
      socket.on('error', () => {});
      held.push(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const startedAt = performance.now();
      await expect(
        migrateDatabase(`postgresql://postgres@127.0.0.1:${port}/${database}`),
      ).rejects.toThrow();
      // The connection deadline (5 s), not a test timeout, ended the wait.
      expect(performance.now() - startedAt).toBeLessThan(15_000);
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  }, 30_000);

  it('lets instances starting together on a new database all succeed, migrating it once', async () => {
    expect(await databaseExists(database)).toBe(false);
    await Promise.all(Array.from({ length: 4 }, () => migrateDatabase(postgresUrl(database))));
    expect(await inspect()).toEqual({
      tables: ['_prisma_migrations', 'api_keys', 'idempotency_records', 'pets', 'server_secrets'],
      history: committedMigrations.map((name) => ({ name, finished: true })),
    });
  });
});
