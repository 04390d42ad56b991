import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The test server; set TEST_POSTGRES_URL to use another one (any database on it). */
export const POSTGRES_SERVER_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** The URL of a database named `name` on the test server. */
export function postgresUrl(name: string): string {
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A database name no other test uses; the database is not created. */
export function uniqueDatabaseName(prefix = 'animal_store_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_SERVER_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function databaseExists(name: string): Promise<boolean> {
  return onServer(async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return rowCount === 1;
  });
}

export function createDatabase(name: string): Promise<void> {
  return onServer(async (client) => {
    await client.query(`CREATE DATABASE "${name}"`);
  });
}

/** Drops the test's own database (and only it), ending any connection still open to it. */
export function dropDatabase(name: string): Promise<void> {
  if (!name.startsWith('animal_store_test_')) throw new Error(`Not a test database: ${name}`);
  return onServer(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}

/** Runs `sql` on the database `name` and answers the rows. */
export function query<Row extends object = Record<string, unknown>>(
  name: string,
  sql: string,
  values: unknown[] = [],
): Promise<Row[]> {
  return (async () => {
    const client = new pg.Client({ connectionString: postgresUrl(name) });
    await client.connect();
    try {
      return (await client.query<Row>(sql, values)).rows;
    } finally {
      await client.end();
    }
  })();
}

/** The tables of the public schema, sorted. */
export async function publicTables(name: string): Promise<string[]> {
  const rows = await query<{ tablename: string }>(
    name,
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
  );
  return rows.map((row) => row.tablename).sort();
}
