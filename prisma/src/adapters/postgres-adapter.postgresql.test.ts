// @module-tag node-runtime: the PostgreSQL driver talks through Node's sockets
import { randomBytes } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  ColumnTypeEnum,
  DriverAdapterError,
  type SqlDriverAdapter,
} from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseFault } from '../database-faults.js';
import {
  createDatabase,
  dropDatabase,
  POSTGRES_SERVER_URL,
  postgresUrl,
  query,
  uniqueDatabaseName,
} from '../test-fixtures/postgres.js';
import { type PostgresPoolOptions, postgresAdapterFactory } from './postgres-adapter.js';

let database: string;
const connections: SqlDriverAdapter[] = [];

beforeAll(async () => {
  database = uniqueDatabaseName();
  await createDatabase(database);
  await query(database, 'CREATE TABLE keys (name TEXT PRIMARY KEY)');
});

afterEach(async () => {
  for (const connection of connections.splice(0)) await connection.dispose();
});

afterAll(async () => {
  await dropDatabase(database);
});

/** The URL of the test database, with the session named so that a test can find it. */
function urlNamed(applicationName: string): string {
  const url = new URL(postgresUrl(database));
  url.searchParams.set('application_name', applicationName);
  return url.toString();
}

async function connect(url: string, options: PostgresPoolOptions = {}) {
  const connection = await postgresAdapterFactory(url, options).connect();
  connections.push(connection);
  return connection;
}

const statement = (sql: string) => ({ sql, args: [], argTypes: [] });

/**
 * A transaction holding the only connection of `connection`'s pool. Opening that connection is
 * bound by the same short deadline the test puts on waiting for it, and a loaded machine can miss
 * it while connecting: that is not what the test checks, so it opens again (a few times at most).
 */
async function holdingTheOnlyConnection(connection: SqlDriverAdapter) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await connection.startTransaction();
    } catch (error) {
      if (attempt === 5) throw error;
    }
  }
}

/** What `work` fails with. */
async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('PostgreSQL faults, as Prisma gets them from the adapter', () => {
  it('a unique violation → UniqueConstraintViolation (P2002: the store answers 409)', async () => {
    const connection = await connect(postgresUrl(database));
    await connection.executeRaw(statement("INSERT INTO keys VALUES ('taken')"));

    const error = await failureOf(
      connection.executeRaw(statement("INSERT INTO keys VALUES ('taken')")),
    );

    expect(error).toBeInstanceOf(DriverAdapterError);
    expect((error as DriverAdapterError).cause).toMatchObject({
      kind: 'UniqueConstraintViolation',
      constraint: { index: 'keys_pkey' },
      originalCode: '23505',
    });
    expect(isDatabaseFault(error)).toBe(false);
  });

  it('a refused connection → DatabaseNotReachable (P1001: the server answers 503)', async () => {
    const closedPort = new URL(POSTGRES_SERVER_URL);
    closedPort.port = '1';
    const connection = await connect(closedPort.toString(), { connectTimeoutMs: 2_000 });

    const error = await failureOf(connection.queryRaw(statement('SELECT 1')));

    expect((error as DriverAdapterError).cause).toMatchObject({
      kind: 'DatabaseNotReachable',
      port: 1,
    });
    expect(isDatabaseFault(error)).toBe(true);
  });

  it('a connection the server ends → postgres 57P01 (the server answers 503 on that code)', async () => {
    const session = `terminated_${randomBytes(4).toString('hex')}`;
    const connection = await connect(urlNamed(session));
    const sleeping = failureOf(connection.queryRaw(statement('SELECT pg_sleep(10)')));
    await waitForSession(session);

    await query(
      database,
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [session],
    );

    const error = await sleeping;
    expect((error as DriverAdapterError).cause).toMatchObject({ kind: 'postgres', code: '57P01' });
    expect(isDatabaseFault(error)).toBe(true);
  });

  it('a statement past statement_timeout → postgres 57014 (the server answers 503 on that code)', async () => {
    const connection = await connect(postgresUrl(database), { statementTimeoutMs: 100 });

    const error = await failureOf(connection.queryRaw(statement('SELECT pg_sleep(2)')));

    expect((error as DriverAdapterError).cause).toMatchObject({ kind: 'postgres', code: '57014' });
    expect(isDatabaseFault(error)).toBe(true);
  });

  it('an answer not read in time (queryTimeoutMs) → pg’s own error, no DriverAdapterError (the server answers 503 on its message)', async () => {
    const connection = await connect(postgresUrl(database), {
      statementTimeoutMs: 0,
      queryTimeoutMs: 100,
    });

    const error = await failureOf(connection.queryRaw(statement('SELECT pg_sleep(2)')));

    expect(error).not.toBeInstanceOf(DriverAdapterError);
    expect(error).toMatchObject({ message: 'Query read timeout' });
    expect(isDatabaseFault(error)).toBe(true);
  });

  it('a connection whose answer did not come in time is not used again, also inside a transaction', async () => {
    const connection = await connect(postgresUrl(database), {
      poolSize: 1,
      statementTimeoutMs: 0,
      queryTimeoutMs: 200,
    });
    const transaction = await connection.startTransaction();
    const stalled = await failureOf(transaction.queryRaw(statement('SELECT pg_sleep(3)')));
    expect(stalled).toMatchObject({ message: 'Query read timeout' });
    expect(isDatabaseFault(stalled)).toBe(true);
    // What the transaction sends after it fails at once, rather than waiting behind the answer.
    const startedAt = performance.now();
    await failureOf(transaction.executeRaw(statement('ROLLBACK')));
    expect(performance.now() - startedAt).toBeLessThan(150);
    // adapter-pg hands the connection back without an error: it must not be handed on.
    await transaction.rollback();

    const result = await connection.queryRaw(statement('SELECT 1 AS one'));
    expect(result.rows).toEqual([[1]]);
  });

  it('no connection free in time (connectTimeoutMs) → pg’s own error, no DriverAdapterError (the server answers 503 on its message)', async () => {
    const connection = await connect(postgresUrl(database), { poolSize: 1, connectTimeoutMs: 100 });
    const holding = await holdingTheOnlyConnection(connection);

    const error = await failureOf(connection.queryRaw(statement('SELECT 1')));
    await holding.rollback();

    expect(error).not.toBeInstanceOf(DriverAdapterError);
    expect(error).toMatchObject({ message: 'timeout exceeded when trying to connect' });
    expect(isDatabaseFault(error)).toBe(true);
  });
});

describe('PostgreSQL system types', () => {
  const SYSTEM_TYPES = `SELECT 'r'::"char" AS kind, 'keys'::regclass AS relation,
    'integer'::regtype AS type, NULL::"char" AS unset`;

  it('reads system types adapter-pg does not map as text, as pg returns them', async () => {
    const connection = await connect(postgresUrl(database));

    const { columnTypes, rows } = await connection.queryRaw(statement(SYSTEM_TYPES));

    expect(columnTypes).toEqual(Array(4).fill(ColumnTypeEnum.Text));
    expect(rows).toEqual([['r', 'keys', 'integer', null]]);
  });

  it('are what adapter-pg alone refuses, so the day it maps them this can go', async () => {
    const pool = new pg.Pool({ connectionString: postgresUrl(database) });
    const connection = await new PrismaPg(pool, { disposeExternalPool: true }).connect();
    connections.push(connection);

    const error = await failureOf(connection.queryRaw(statement(SYSTEM_TYPES)));

    expect((error as DriverAdapterError).cause).toMatchObject({
      kind: 'UnsupportedNativeDataType',
    });
  });
});

/** Waits until a session of that application name is running a statement. */
async function waitForSession(applicationName: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const rows = await query(
      database,
      "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'",
      [applicationName],
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no session ${applicationName} started`);
}
