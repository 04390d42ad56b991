import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { SystemTypesAsTextClient } from './postgres-system-types.js';

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

/** pg's error when the answer to a query has not come within `query_timeout`. */
const READ_TIMEOUT_MESSAGE = 'Query read timeout';

type QueryCallback = (error: unknown, result: unknown) => void;

/** The query() of the client below's parent, taking every one of pg's overloads. */
const parentQuery = SystemTypesAsTextClient.prototype.query as (
  this: pg.Client,
  ...args: unknown[]
) => unknown;

/**
 * Marks `client` not queryable once an answer did not come in time. pg leaves such a client
 * connected and still waiting for that answer: a query sent next on it waits behind it for its
 * own whole deadline, and a pool hands it on to the next caller, since adapter-pg gives a
 * transaction's client back without an error. Not queryable, it fails at once, and pg-pool
 * closes it when it is given back (pg-pool reads the same private flag to decide that).
 */
function giveUpAfterReadTimeout(client: pg.Client, error: unknown) {
  if (error instanceof Error && error.message === READ_TIMEOUT_MESSAGE) {
    (client as unknown as { _queryable: boolean })._queryable = false;
  }
}

function queryGivingUpAfterReadTimeout(this: pg.Client, ...args: unknown[]): unknown {
  const last = args.length - 1;
  const callback = args[last];
  if (typeof callback === 'function') {
    args[last] = (error: unknown, result: unknown) => {
      giveUpAfterReadTimeout(this, error);
      (callback as QueryCallback)(error, result);
    };
  }
  const returned = parentQuery.apply(this, args);
  return returned instanceof Promise
    ? returned.catch((error: unknown) => {
        giveUpAfterReadTimeout(this, error);
        throw error;
      })
    : returned;
}

/** The client of every pool: system types as text, and given up after a read timeout. */
class DeadlineClient extends SystemTypesAsTextClient {}
Object.assign(DeadlineClient.prototype, { query: queryGivingUpAfterReadTimeout });

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
    Client: DeadlineClient,
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
 */
export function postgresAdapterFactory(
  url: string,
  poolOrOptions: PostgresPoolOptions | pg.Pool = {},
): SqlMigrationAwareDriverAdapterFactory {
  const schema = postgresSchema(url);
  const options = schema === 'public' ? {} : { schema };
  return poolOrOptions instanceof pg.Pool
    ? new PrismaPg(poolOrOptions, { ...options, disposeExternalPool: true })
    : new PrismaPg(postgresPoolConfig(url, poolOrOptions), options);
}
