import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { POSTGRES_SERVER_URL } from './test-services.js';

export type TestProvider = 'sqlite' | 'postgresql';

/** The database an environment names: `TEST_DATABASE_PROVIDER=postgresql` for PostgreSQL. */
export function providerOf(env: Record<string, string | undefined>): TestProvider {
  return env.TEST_DATABASE_PROVIDER === 'postgresql' ? 'postgresql' : 'sqlite';
}

/**
 * Which database the server suite runs on: each project of its vitest config sets
 * `TEST_DATABASE_PROVIDER` for its files.
 */
export const TEST_PROVIDER: TestProvider = providerOf(process.env);

const TEST_DATABASE_PREFIX = 'animal_store_test_';

function postgresUrl(name: string): string {
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onPostgresServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A database no other test uses. From `template` (a migrated database made once per run) when
 * given, else empty, for the server to create and migrate as it does on first start. On the
 * suite's provider unless `provider` says otherwise.
 */
export async function freshDatabase(
  template?: string,
  provider: TestProvider = TEST_PROVIDER,
): Promise<TestDatabase> {
  const suffix = randomBytes(6).toString('hex');
  if (provider === 'postgresql') {
    const name = `${TEST_DATABASE_PREFIX}${suffix}`;
    if (template) await onPostgresServer(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    return {
      url: postgresUrl(name),
      drop: () => onPostgresServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
    };
  }
  const folder = await mkdtemp(join(tmpdir(), TEST_DATABASE_PREFIX));
  const file = join(folder, 'test.db');
  if (template) await copyFile(template, file);
  return { url: `file:${file}`, drop: () => rm(folder, { recursive: true, force: true }) };
}

/** Where a migrated template lives: a file (SQLite) or a database name (PostgreSQL). */
export async function templateLocation(provider: TestProvider): Promise<{
  url: string;
  template: string;
  drop(): Promise<void>;
}> {
  const database = await freshDatabase(undefined, provider);
  const template =
    provider === 'postgresql'
      ? new URL(database.url).pathname.slice(1)
      : database.url.slice('file:'.length);
  return { ...database, template };
}

const scratch: TestDatabase[] = [];

/** The URL of a database that does not exist yet; dropped by `dropScratchDatabases`. */
export async function scratchDatabaseUrl(): Promise<string> {
  const database = await freshDatabase();
  scratch.push(database);
  return database.url;
}

export async function dropScratchDatabases(): Promise<void> {
  await Promise.all(scratch.splice(0).map((database) => database.drop()));
}
