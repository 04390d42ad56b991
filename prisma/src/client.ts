import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Pool } from 'pg';
import { PrismaClient as PostgresPrismaClient } from '../generated/postgresql/client.js';
import { PrismaClient } from '../generated/sqlite/client.js';
import { type ReplyContinuation, repliesContinuedBy } from './adapters/continued-replies.js';
import { libsqlAdapterFactory } from './adapters/libsql-adapter.js';
import { observedAdapterFactory, type QueryObserver } from './adapters/observed-adapter.js';
import { postgresAdapterFactory, postgresPool } from './adapters/postgres-adapter.js';
import { sqliteDatabaseFile } from './adapters/sqlite-database-file.js';
import {
  type ConnectionRecord,
  connectionsRecorded,
  type TextRead,
  textReader,
} from './adapters/text-reads.js';

/**
 * The Prisma client of the animal store's database. One type for both databases: the SQLite
 * and PostgreSQL schemas define the same models (the no-drift test in schema-drift.test.ts
 * fails when they differ), so their generated clients have the same model API. One exception,
 * named in that test: `Pet.id` is an Int on SQLite (Prisma cannot autoincrement a BigInt id
 * there) and a BigInt on PostgreSQL, so where this type says `number`, a PostgreSQL client
 * returns a `bigint`. Read Pet ids through `Number()`; any id is accepted as an input.
 */
export type DatabaseClient = PrismaClient;

/**
 * Deadlines, pool settings and the caller's hooks. Every call to the database has a deadline, so
 * a database that hangs (a stuck server, a dropped network path) fails requests quickly instead
 * of holding them.
 */
export interface DatabaseClientOptions {
  /** PostgreSQL: the most connections the client opens. Default 10. */
  poolSize?: number;
  /** PostgreSQL: the server cancels a statement running longer (ms; 0 = never). Default 1500. */
  statementTimeoutMs?: number;
  /**
   * PostgreSQL: most time to get a connection, from the pool or newly opened, for a query or a
   * transaction (ms). Default 2000.
   */
  connectTimeoutMs?: number;
  /**
   * PostgreSQL: most time the client waits for a query's answer (ms), whatever the server does;
   * the connection is dropped past it. Default 2000.
   */
  queryTimeoutMs?: number;
  /** SQLite: most time a statement waits for another connection's lock (ms). Default 3000. */
  busyTimeoutMs?: number;
  /**
   * Told of each statement Prisma sends (and each text read, `textReaderOf`), once, as it ends:
   * its SQL (placeholders, never the values bound to them), when it was sent, how long it took
   * and whether (and why) it failed. Statements inside transactions and SQLite's group commits
   * are told like any other; what the driver adapter sends on its own is not: a transaction's
   * BEGIN, and on SQLite its COMMIT or ROLLBACK and a group commit's. (On PostgreSQL, Prisma
   * sends a transaction's COMMIT or ROLLBACK itself, so that one is told.)
   */
  onQuery?: QueryObserver;
  /**
   * PostgreSQL: the caller's scheduling. The reply to each statement the client sends outside
   * an interactive transaction (and to each text read) passes through it, and Prisma goes on
   * once the promise it returns settles, as that reply settled. The server uses it to resume the
   * replies of one event-loop turn together. SQLite needs none: its adapter answers a read in the
   * call that sends it and the writes of one turn in one group commit, so their callers resume
   * together already.
   */
  continueReplies?: ReplyContinuation;
}

export const DEFAULT_DATABASE_CLIENT_OPTIONS = {
  poolSize: 10,
  statementTimeoutMs: 1_500,
  connectTimeoutMs: 2_000,
  queryTimeoutMs: 2_000,
  busyTimeoutMs: 3_000,
} as const satisfies Required<Omit<DatabaseClientOptions, 'onQuery' | 'continueReplies'>>;

function checkedOptions(options: DatabaseClientOptions) {
  const settings = { ...DEFAULT_DATABASE_CLIENT_OPTIONS, ...options };
  if (!Number.isInteger(settings.poolSize) || settings.poolSize < 1) {
    throw new Error(`The pool size must be a positive integer, not ${settings.poolSize}.`);
  }
  const timeouts = {
    'statement timeout': settings.statementTimeoutMs,
    'connect timeout': settings.connectTimeoutMs,
    'query timeout': settings.queryTimeoutMs,
    'busy timeout': settings.busyTimeoutMs,
  };
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isInteger(value) || value < 0) {
      throw new Error(`The ${name} must be a whole number of ms, not ${value}.`);
    }
  }
  return settings;
}

/** @returns `postgresql` for postgres:// and postgresql:// URLs, `sqlite` for file: URLs. */
export function databaseProvider(databaseUrl: string): 'sqlite' | 'postgresql' {
  const scheme = databaseUrl.split(':', 1)[0];
  if (scheme === 'file') return 'sqlite';
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgresql';
  throw new Error(
    `Unsupported database URL scheme "${scheme}:": use a "file:" URL for SQLite or a "postgresql:" URL.`,
  );
}

/**
 * A Prisma client on the database at `databaseUrl`, with the driver adapter its scheme calls
 * for. SQLite (`file:`) runs in WAL mode with a bounded busy wait, so concurrent requests and
 * other processes wait for each other briefly instead of failing with SQLITE_BUSY. PostgreSQL
 * (`postgres://`, `postgresql://`) runs on a pool of `poolSize` connections, with deadlines to
 * connect, to acquire a connection and for every query, and a server-side `statement_timeout`;
 * each connection prepares the statements it runs once (adapters/prepared-statements.ts).
 */
export function createPrismaClient(
  databaseUrl: string,
  options: DatabaseClientOptions = {},
): DatabaseClient {
  const settings = checkedOptions(options);
  const observed = (adapter: SqlDriverAdapterFactory) =>
    settings.onQuery ? observedAdapterFactory(adapter, settings.onQuery) : adapter;
  const connection: ConnectionRecord = { current: undefined };
  if (databaseProvider(databaseUrl) === 'sqlite') {
    const file = sqliteDatabaseFile(databaseUrl) ?? ':memory:';
    const adapter = libsqlAdapterFactory(file, { busyTimeoutMs: settings.busyTimeoutMs });
    const client = new PrismaClient({
      adapter: connectionsRecorded(observed(adapter), connection),
    });
    clientFacts.set(client, { provider: 'sqlite', connection });
    return client;
  }
  const pool = postgresPool(databaseUrl, settings);
  const adapter = observed(postgresAdapterFactory(databaseUrl, pool, { preparedStatements: true }));
  const client = new PostgresPrismaClient({
    adapter: connectionsRecorded(
      settings.continueReplies ? repliesContinuedBy(adapter, settings.continueReplies) : adapter,
      connection,
    ),
    // A transaction waits for its connection as long as any other call does, not Prisma's own
    // 2 s beside it: the one deadline to get a connection is connectTimeoutMs.
    transactionOptions: { maxWait: settings.connectTimeoutMs },
  }) as unknown as DatabaseClient;
  // The two generated clients differ only in their provider-specific internals and in Pet.id
  // (see DatabaseClient); their model API is the same because the schemas' models are (guarded
  // by the no-drift test).
  clientFacts.set(client, { provider: 'postgresql', connection, pool });
  return client;
}

/** A PostgreSQL client's connection pool, as operators watch it. */
export interface PoolStats {
  /** Connections open, idle or in use. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

/** What `createPrismaClient` knows of each client it made. */
interface ClientFacts {
  provider: 'sqlite' | 'postgresql';
  connection: ConnectionRecord;
  pool?: Pool;
}

const clientFacts = new WeakMap<DatabaseClient, ClientFacts>();

function factsOf(client: DatabaseClient): ClientFacts {
  const facts = clientFacts.get(client);
  if (!facts) throw new Error('The client was not made by createPrismaClient.');
  return facts;
}

/**
 * Which database `client` is on: for the few statements written in each one's SQL, where the
 * two dialects part (a data-modifying `WITH`, which SQLite lacks).
 */
export function providerOf(client: DatabaseClient): 'sqlite' | 'postgresql' {
  return factsOf(client).provider;
}

/**
 * Reads of one text value the database writes whole (a page of pets as JSON), on `client`'s own
 * driver adapter (the connection, deadlines, query observer and reply scheduling its queries
 * have) but not through the client: Prisma's per-query work around the adapter (serialising the
 * request, its query interpreter, mapping the result) cost as much as SQLite's own work on a
 * page, for a value that needs none of it. The statement is built with `Prisma.sql`, and its
 * errors are the adapter's, which `isDatabaseFault` reads like Prisma's
 * (docs/decisions/012-text-reads-skip-the-prisma-client.md).
 */
export function textReaderOf(client: DatabaseClient): TextRead {
  return textReader(factsOf(client).connection, () => client.$connect());
}

/** How `client`'s connection pool stands right now; undefined for SQLite, which has no pool. */
export function poolStatsOf(client: DatabaseClient): PoolStats | undefined {
  const { pool } = factsOf(client);
  return pool && { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}
