// @ts-check
/**
 * PostgreSQL through `@prisma/adapter-pg`: the driver adapter both the server's Prisma client
 * and the wasm schema engine use, and the schema engine's PostgreSQL flavor, which closes the
 * gaps between the wasm engine, adapter-pg 7.10 and Prisma's native engine.
 *
 * @import { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils'
 * @import { DatabaseFlavor } from './wasm-engine.mjs'
 */
import { randomUUID } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { EngineError } from './engine-error.mjs';

const FIRST_NORMAL_OBJECT_ID = 16_384;
const TEXT_OID = 25;
const { builtins } = pg.types;

/**
 * The type OIDs adapter-pg 7.10 maps to a column type (its `fieldToColumnType`). It refuses
 * every other system type (< 16384) with "Unsupported column type", even those pg returns as
 * plain strings, such as the internal `"char"` (OID 18) the engine's schema reader selects.
 */
const ADAPTER_PG_TYPE_OIDS = new Set([
  ...[
    'INT2',
    'INT4',
    'INT8',
    'FLOAT4',
    'FLOAT8',
    'BOOL',
    'DATE',
    'TIME',
    'TIMETZ',
    'TIMESTAMP',
    'TIMESTAMPTZ',
    'NUMERIC',
    'MONEY',
    'JSON',
    'JSONB',
    'UUID',
    'OID',
    'BPCHAR',
    'TEXT',
    'VARCHAR',
    'BIT',
    'VARBIT',
    'INET',
    'CIDR',
    'XML',
    'BYTEA',
  ].map((name) => /** @type {Record<string, number>} */ (builtins)[name]),
  19, // name
  // The array types it knows.
  1561,
  1000,
  1001,
  1014,
  1002,
  651,
  1182,
  1021,
  1022,
  1041,
  1005,
  1007,
  1016,
  3807,
  199,
  791,
  1231,
  1028,
  1009,
  1115,
  1185,
  1183,
  2951,
  1563,
  1015,
  143,
]);

/**
 * @typedef {{ fields?: Array<{ dataTypeID: number }> }} ResultWithFields
 * @param {unknown} result a pg result, or an array of them for a multi-statement query
 */
function reportUnknownSystemTypesAsText(result) {
  for (const one of Array.isArray(result) ? result : [result]) {
    for (const field of /** @type {ResultWithFields} */ (one)?.fields ?? []) {
      if (
        field.dataTypeID < FIRST_NORMAL_OBJECT_ID &&
        !ADAPTER_PG_TYPE_OIDS.has(field.dataTypeID)
      ) {
        field.dataTypeID = TEXT_OID;
      }
    }
  }
  return result;
}

/**
 * A pg client whose results report the system types adapter-pg does not know as text. pg parses
 * values by their real type before this runs, and it returns those types (`"char"`, `void`,
 * `regclass`, `interval` …) as strings, so text is what they are by then.
 */
class SystemTypesAsTextClient extends pg.Client {
  /** @param {any[]} args */
  // @ts-expect-error: one implementation for all of pg's query overloads
  query(...args) {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (/** @type {unknown} */ error, /** @type {unknown} */ result) =>
        callback(error, error ? result : reportUnknownSystemTypesAsText(result));
    }
    // @ts-expect-error: forwarded as received
    const returned = super.query(...args);
    return returned instanceof Promise ? returned.then(reportUnknownSystemTypesAsText) : returned;
  }
}

/**
 * The URL with another database name in its path.
 * @param {string} url
 * @param {string} database
 */
export function withDatabase(url, database) {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/**
 * The database a postgres(ql):// URL names (pg's default is the user name).
 * @param {string} url
 */
export function postgresDatabaseName(url) {
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.pathname.slice(1));
  return name || decodeURIComponent(parsed.username) || process.env.PGUSER || 'postgres';
}

/**
 * The schema Prisma works in: the URL's `schema` parameter, as with the native engine.
 * @param {string} url
 */
function postgresSchema(url) {
  return new URL(url).searchParams.get('schema') || 'public';
}

/**
 * @typedef {object} PoolOptions
 * @property {number} [poolSize] the most connections the pool opens
 * @property {number} [statementTimeoutMs] the server cancels statements running longer
 * @property {number} [connectTimeoutMs] most time to get a connection, pooled or new
 * @property {number} [queryTimeoutMs] most time the client waits for a query's answer
 */

/**
 * @param {string} url
 * @param {PoolOptions} options
 * @returns {pg.PoolConfig}
 */
function poolConfig(url, { poolSize, statementTimeoutMs, connectTimeoutMs, queryTimeoutMs }) {
  // Prisma's own URL parameter; pg would pass it to the server as an unknown option.
  const parsed = new URL(url);
  parsed.searchParams.delete('schema');
  return {
    connectionString: parsed.toString(),
    Client: SystemTypesAsTextClient,
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

/** @param {string} identifier */
function quoteIdentifier(identifier) {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/**
 * A connection pool on `url` with the deadlines of `options`.
 * @param {string} url a postgres:// or postgresql:// URL
 * @param {PoolOptions} [options]
 * @returns {pg.Pool}
 */
export function postgresPool(url, options = {}) {
  return new pg.Pool(poolConfig(url, options));
}

/**
 * The PostgreSQL driver adapter for Prisma's client: adapter-pg on `pool` (which it ends when
 * the client disconnects) or, given pool options, on a pool of its own.
 * @param {string} url a postgres:// or postgresql:// URL
 * @param {PoolOptions | pg.Pool} [poolOrOptions]
 * @returns {SqlMigrationAwareDriverAdapterFactory}
 */
export function postgresAdapterFactory(url, poolOrOptions = {}) {
  const schema = postgresSchema(url);
  const options = schema === 'public' ? {} : { schema };
  return poolOrOptions instanceof pg.Pool
    ? new PrismaPg(poolOrOptions, { ...options, disposeExternalPool: true })
    : new PrismaPg(poolConfig(url, poolOrOptions), options);
}

/**
 * Runs `work` on one plain connection to `url`.
 * @template T
 * @param {string} url
 * @param {(client: pg.Client) => Promise<T>} work
 */
async function withClient(url, work) {
  const client = new pg.Client(poolConfig(url, {}));
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** @param {unknown} error */
const pgCode = (error) =>
  typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;

/**
 * Whether CREATE DATABASE failed because someone created that database meanwhile: PostgreSQL
 * says so with duplicate_database, or, when both creations ran at once, with a unique violation
 * on its own catalog.
 * @param {unknown} error
 */
const createdConcurrently = (error) =>
  pgCode(error) === '42P04' ||
  (pgCode(error) === '23505' &&
    /** @type {{ constraint?: unknown }} */ (error).constraint === 'pg_database_datname_index');

/**
 * @param {string} url a postgres:// or postgresql:// URL
 * @param {object} [options]
 * @param {string} [options.shadowDatabaseUrl] the datasource's shadow database, wiped before use
 * @returns {DatabaseFlavor}
 */
export function postgresFlavor(url, { shadowDatabaseUrl } = {}) {
  const schema = postgresSchema(url);
  const adapters = postgresAdapterFactory(url);
  /** @type {Array<() => Promise<void>>} */
  const closers = [];

  /**
   * @param {SqlDriverAdapter} connection
   * @param {() => Promise<void>} [cleanup] runs after the connection's pool is closed
   */
  const tracked = (connection, cleanup = async () => {}) => {
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await connection.dispose();
      await cleanup();
    };
    closers.push(close);
    return /** @type {SqlDriverAdapter} */ ({ ...bindAll(connection), dispose: close });
  };

  /**
   * adapter-pg's own shadow database handling fails three ways: its pool config keeps the
   * `connectionString`, which overrides the shadow database name (so the "shadow" is the main
   * database, and replaying migrations there wrecks it); its cleanup drops the database while
   * its pool still holds connections to it; and it never uses a configured shadowDatabaseUrl.
   */
  const connectToShadowDb = async () => {
    if (shadowDatabaseUrl) {
      // The native engine wipes a configured shadow database first, and leaves it in place.
      const shadowSchema = postgresSchema(shadowDatabaseUrl);
      await withClient(shadowDatabaseUrl, (client) =>
        client.query(
          `DROP SCHEMA IF EXISTS ${quoteIdentifier(shadowSchema)} CASCADE; CREATE SCHEMA ${quoteIdentifier(shadowSchema)}`,
        ),
      );
      return tracked(await postgresAdapterFactory(shadowDatabaseUrl).connect());
    }
    const database = `prisma_migrate_shadow_db_${randomUUID()}`;
    await withClient(url, (client) => client.query(`CREATE DATABASE ${quoteIdentifier(database)}`));
    const shadowUrl = withDatabase(url, database);
    return tracked(await postgresAdapterFactory(shadowUrl).connect(), () =>
      withClient(url, async (client) => {
        // The shadow pool is closed by now; FORCE (PostgreSQL 13+) ends any straggler.
        await client
          .query(`DROP DATABASE IF EXISTS ${quoteIdentifier(database)} WITH (FORCE)`)
          .catch(() => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(database)}`));
      }),
    );
  };

  return {
    adapterFactory: {
      provider: adapters.provider,
      adapterName: adapters.adapterName,
      connect: async () => tracked(await adapters.connect()),
      connectToShadowDb,
    },

    // The wasm engine creates `_prisma_migrations` itself on PostgreSQL.
    ensureMigrationsTable: async () => {},

    // Like the native engine: the schema goes, with everything in it, and comes back empty.
    reset: async ({ filter }) => {
      if (filter.externalTables.length > 0) {
        throw new EngineError('migrate reset with external tables is not supported.', undefined);
      }
      await withClient(url, (client) =>
        client.query(
          `DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE; CREATE SCHEMA ${quoteIdentifier(schema)}`,
        ),
      );
    },

    assertDatabaseExists: async () => {
      try {
        await withClient(url, async () => {});
      } catch (error) {
        if (pgCode(error) !== '3D000') throw error;
        const { host, port } = new URL(url);
        throw new EngineError(
          `Database \`${postgresDatabaseName(url)}\` does not exist on the database server at \`${host}${port ? '' : ':5432'}\`.`,
          'P1003',
        );
      }
    },

    createDatabase: async () => {
      const databaseName = postgresDatabaseName(url);
      // Connect to the server's maintenance database: the one named may not exist yet.
      await withClient(withDatabase(url, 'postgres'), async (client) => {
        const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
          databaseName,
        ]);
        if (rowCount) return;
        await client.query(`CREATE DATABASE ${quoteIdentifier(databaseName)}`).catch((error) => {
          // Another instance starting at the same moment created it: fine.
          if (!createdConcurrently(error)) throw error;
        });
      });
      return { databaseName };
    },

    close: async () => {
      for (const close of closers.splice(0).reverse()) await close();
    },
  };
}

/**
 * The adapter's methods, bound to it, so that they survive being spread into a new object.
 * @param {SqlDriverAdapter} connection
 * @returns {SqlDriverAdapter}
 */
function bindAll(connection) {
  /** @type {any} */
  const bound = { provider: connection.provider, adapterName: connection.adapterName };
  let prototype = Object.getPrototypeOf(connection);
  while (prototype && prototype !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const value = Reflect.get(connection, name);
      if (name !== 'constructor' && typeof value === 'function' && !(name in bound)) {
        bound[name] = value.bind(connection);
      }
    }
    prototype = Object.getPrototypeOf(prototype);
  }
  return bound;
}
