// @ts-check
/**
 * The schema engine's PostgreSQL flavor: the server's PostgreSQL adapter
 * (src/adapters/postgres-adapter.ts) and the commands the wasm engine and adapter-pg 7.10 get
 * wrong or lack next to Prisma's native engine.
 *
 * @import { SqlDriverAdapter } from '@prisma/driver-adapter-utils'
 * @import { DatabaseFlavor } from './wasm-engine.mjs'
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  postgresAdapterFactory,
  postgresPoolConfig,
  postgresSchema,
} from '../src/adapters/postgres-adapter.js';
import { EngineError } from './engine-error.mjs';

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

/** @param {string} identifier */
function quoteIdentifier(identifier) {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/**
 * How long a connection of the migrations may take to open: a database that accepts connections
 * and never answers (a hung server, a proxy in front of a dead one) fails a starting server
 * rather than holding it silent forever. Statements get no deadline: a migration may rightly
 * take minutes.
 */
const CONNECTION_DEADLINES = { connectTimeoutMs: 5_000 };

/**
 * Runs `work` on one plain connection to `url`.
 * @template T
 * @param {string} url
 * @param {(client: pg.Client) => Promise<T>} work
 */
async function withClient(url, work) {
  const client = new pg.Client(postgresPoolConfig(url, CONNECTION_DEADLINES));
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
  const adapters = postgresAdapterFactory(url, CONNECTION_DEADLINES);
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
      return tracked(
        await postgresAdapterFactory(shadowDatabaseUrl, CONNECTION_DEADLINES).connect(),
      );
    }
    const database = `prisma_migrate_shadow_db_${randomUUID()}`;
    await withClient(url, (client) => client.query(`CREATE DATABASE ${quoteIdentifier(database)}`));
    const shadowUrl = withDatabase(url, database);
    return tracked(await postgresAdapterFactory(shadowUrl, CONNECTION_DEADLINES).connect(), () =>
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
