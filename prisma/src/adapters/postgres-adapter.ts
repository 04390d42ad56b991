import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PostgresClient } from './postgres-client.js';
import { preparedStatementNames } from './prepared-statements.js';

/** Every call to the database has a deadline, so that a database that hangs fails calls fast. */
export interface PostgresPoolOptions {
  /** The most connections the pool opens. */
  poolSize?: number;
  /** The server cancels a statement running longer (ms; 0 = never). */
  statementTimeoutMs?: number;
  /** Most time to get a connection, from the pool or newly opened (ms). */
  connectTimeoutMs?: number;
  /** Most time the client waits for a query's answer (ms); the connection is dropped past it. */
  queryTimeoutMs?: number;
}

/** The schema Prisma works in: the URL's `schema` parameter, as with the native engine. */
export function postgresSchema(url: string): string {
  return new URL(url).searchParams.get('schema') || 'public';
}

/** The pg configuration of a pool (or a lone client) on `url`, with the deadlines of `options`. */
export function postgresPoolConfig(
  url: string,
  { poolSize, statementTimeoutMs, connectTimeoutMs, queryTimeoutMs }: PostgresPoolOptions,
): pg.PoolConfig {
  // Prisma's own URL parameter; pg would pass it to the server as an unknown option.
  const parsed = new URL(url);
  parsed.searchParams.delete('schema');
  return {
    connectionString: parsed.toString(),
    Client: PostgresClient,
    // Idle connections must not hold a finished process (the migrator, the key command) open
    // for pg's 10 s idle timeout; a server stays up through its listening socket anyway.
    allowExitOnIdle: true,
    // A peer that vanished without closing the connection is found out by the kernel.
    keepAlive: true,
    ...(poolSize === undefined ? {} : { max: poolSize }),
    ...(statementTimeoutMs === undefined ? {} : { statement_timeout: statementTimeoutMs }),
    ...(connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: connectTimeoutMs }),
    ...(queryTimeoutMs === undefined ? {} : { query_timeout: queryTimeoutMs }),
  };
}

/** A connection pool on `url` (a postgres:// or postgresql:// URL) with the deadlines of `options`. */
export function postgresPool(url: string, options: PostgresPoolOptions = {}): pg.Pool {
  return new pg.Pool(postgresPoolConfig(url, options));
}

/**
 * The PostgreSQL driver adapter: `@prisma/adapter-pg` on `pool` (which it ends when the client
 * disconnects) or, given pool options, on a pool of its own. adapter-pg maps PostgreSQL's errors
 * to the contract's kinds; node-postgres's own deadlines (a connection not acquired in time, an
 * answer not read in time) and a dropped connection reach Prisma as the plain errors pg throws.
 * With `preparedStatements`, each connection prepares the statements it runs once
 * (prepared-statements.ts): for a server's client, not for the schema engine. A migration
 * replans what it touches, but a prepared statement whose result columns it changes (a column's
 * type) fails with 0A000 on the connections that prepared it: such a migration is made with the
 * instances of the old schema stopped, whose Prisma client could not read the new type anyway.
 */
export function postgresAdapterFactory(
  url: string,
  poolOrOptions: PostgresPoolOptions | pg.Pool = {},
  { preparedStatements = false } = {},
): SqlMigrationAwareDriverAdapterFactory {
  const schema = postgresSchema(url);
  const options = {
    ...(schema === 'public' ? {} : { schema }),
    ...(preparedStatements ? { statementNameGenerator: preparedStatementNames() } : {}),
  };
  return poolOrOptions instanceof pg.Pool
    ? new PrismaPg(poolOrOptions, { ...options, disposeExternalPool: true })
    : new PrismaPg(postgresPoolConfig(url, poolOrOptions), options);
}
