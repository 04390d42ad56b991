import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { onCleanup } from './cleanup.js';

export type DatabaseKind = 'sqlite' | 'postgres';

/** The local PostgreSQL server (trust authentication); benched databases are made on it. */
const POSTGRES_SERVER = 'postgresql://postgres@127.0.0.1:5432';

/** A SQLite file in a folder of its own under the run's temp folder. */
export async function freshSqliteFile(tempFolder: string, label: string): Promise<string> {
  const folder = join(tempFolder, label);
  await mkdir(folder, { recursive: true });
  return join(folder, 'bench.db');
}

async function onPostgresServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${POSTGRES_SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// FORCE: a server that did not stop in time must not keep its database alive.
const dropPostgresDatabase = (name: string) =>
  onPostgresServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);

/**
 * The DATABASE_URL of a database nobody has used: a new SQLite file, or the URL of a PostgreSQL
 * database with a name of its own, which the server creates when it migrates at start. The
 * PostgreSQL database is dropped at cleanup.
 */
export async function freshDatabaseUrl(
  kind: DatabaseKind,
  tempFolder: string,
  label: string,
): Promise<string> {
  if (kind === 'sqlite') return `file:${await freshSqliteFile(tempFolder, label)}`;
  return `${POSTGRES_SERVER}/${freshPostgresName(label)}`;
}

/** A name no database has yet; the database of that name, once made, is dropped at cleanup. */
function freshPostgresName(label: string): string {
  const name = `animal_store_bench_${label.toLowerCase().replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  onCleanup(`drop PostgreSQL database ${name}`, () => dropPostgresDatabase(name));
  return name;
}

/**
 * An empty PostgreSQL database of its own, made now, for a server that does not create its
 * database (the bare baseline); dropped at cleanup.
 */
export async function createdPostgresDatabase(label: string): Promise<string> {
  const name = freshPostgresName(label);
  await onPostgresServer(`CREATE DATABASE "${name}"`);
  return `${POSTGRES_SERVER}/${name}`;
}

/** Fails early, with the reason, when the local PostgreSQL server does not answer. */
export async function checkPostgres(): Promise<void> {
  const client = new pg.Client({
    connectionString: `${POSTGRES_SERVER}/postgres`,
    connectionTimeoutMillis: 3_000,
  });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(
      `--db postgres needs PostgreSQL at ${POSTGRES_SERVER} (user postgres, trust auth): ${error instanceof Error ? error.message : error}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
