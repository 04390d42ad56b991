// @ts-check
/**
 * The schema engine's SQLite flavor: its driver adapter, `@prisma/adapter-libsql` with the gaps
 * between the wasm engine, libsql and Prisma's native engine closed. (The server's client runs
 * on our own adapter, src/adapters/libsql-adapter.ts, which keeps its prepared statements; the
 * engine needs connections that really close when disposed, for it migrates in SQLite's
 * exclusive locking mode.)
 *
 * @import { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils'
 * @import { DatabaseFlavor } from './wasm-engine.mjs'
 */
import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import {
  createConnectionLock,
  startTransactionInPlace,
} from '../src/adapters/in-place-transactions.js';
import { sqliteDatabaseFile } from '../src/adapters/sqlite-database-file.js';
import { EngineError } from './engine-error.mjs';

/**
 * How long a statement of the schema engine waits for another connection's lock before failing
 * with SQLITE_BUSY: long, for the migrator runs alone, at start, and must not give up early.
 */
const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

// The engine's own DDL, as it runs it when applyMigrations finds no history table.
const MIGRATIONS_TABLE_DDL = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
);`;

/** @param {string} sql */
const statement = (sql) => ({ sql, args: [], argTypes: [] });

/**
 * Runs transactions on the adapter's own connection, while other queries wait.
 *
 * libsql's `transaction()` hands its connection to the transaction and opens a new one for
 * whatever comes next; the old one is only closed by the garbage collector, so every Prisma
 * transaction leaked a connection (file descriptors, ~170 kB of native memory, and a fresh
 * empty database for `:memory:`).
 * @param {SqlDriverAdapter} connection
 * @returns {SqlDriverAdapter}
 */
function transactingInPlace(connection) {
  const lock = createConnectionLock();
  /**
   * @template T
   * @param {() => Promise<T>} work
   */
  const exclusively = async (work) => {
    const release = await lock.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  };
  return {
    provider: connection.provider,
    adapterName: connection.adapterName,
    queryRaw: (query) => exclusively(() => connection.queryRaw(query)),
    executeRaw: (query) => exclusively(() => connection.executeRaw(query)),
    executeScript: (script) => exclusively(() => connection.executeScript(script)),
    startTransaction: (isolationLevel) => startTransactionInPlace(connection, lock, isolationLevel),
    dispose: () => connection.dispose(),
  };
}

/**
 * The SQLite driver adapter of the schema engine: `@prisma/adapter-libsql` with a busy timeout
 * and in-place transactions.
 * @param {string} url a `file:` URL
 * @param {object} [options]
 * @param {number} [options.busyTimeoutMs] how long a statement waits for another connection's lock
 * @returns {SqlMigrationAwareDriverAdapterFactory}
 */
export function sqliteAdapterFactory(url, { busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS } = {}) {
  const libsql = new PrismaLibSql({ url, timeout: busyTimeoutMs });
  return {
    provider: 'sqlite',
    adapterName: libsql.adapterName,
    connect: async () => transactingInPlace(await libsql.connect()),
    // libsql's shadow database is a fresh `:memory:` database on every connection.
    connectToShadowDb: async () => transactingInPlace(await libsql.connectToShadowDb()),
  };
}

/**
 * Whether `sql` holds more than one statement. libsql's `execute` silently runs only the first
 * statement of a script, so those must go through `executeScript`. Quotes and comments are
 * skipped; when in doubt (a trigger body, say) this answers true, which is always safe.
 * @param {string} sql
 */
export function hasSeveralStatements(sql) {
  let statementEnded = false;
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i] ?? '';
    const closingQuote = { "'": "'", '"': '"', '`': '`', '[': ']' }[char];
    if (closingQuote) {
      if (statementEnded) return true;
      const end = sql.indexOf(closingQuote, i + 1);
      if (end === -1) return false;
      i = end;
    } else if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      if (end === -1) return false;
      i = end;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) return false;
      i = end + 1;
    } else if (char === ';') {
      statementEnded = true;
    } else if (statementEnded && !/\s/.test(char)) {
      return true;
    }
  }
  return false;
}

/**
 * Runs multi-statement scripts that arrive through `executeRaw` (the engine does this when it
 * replays migrations on the shadow database) as scripts.
 * @param {SqlDriverAdapter} connection
 * @returns {SqlDriverAdapter}
 */
function runningScriptsWhole(connection) {
  return {
    ...connection,
    executeRaw: async (/** @type {SqlQuery} */ query) => {
      if (query.args.length > 0 || !hasSeveralStatements(query.sql)) {
        return connection.executeRaw(query);
      }
      await connection.executeScript(query.sql);
      return 0;
    },
  };
}

/** @param {string} identifier */
function quoteIdentifier(identifier) {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/**
 * @param {string} url a `file:` URL
 * @returns {DatabaseFlavor}
 */
export function sqliteFlavor(url) {
  const adapters = sqliteAdapterFactory(url);
  const databaseFile = sqliteDatabaseFile(url);
  /** @type {SqlDriverAdapter[]} */
  const connections = [];

  /** @param {() => Promise<SqlDriverAdapter>} connect */
  const tracked = async (connect) => {
    const connection = runningScriptsWhole(await connect());
    connections.push(connection);
    return connection;
  };

  /**
   * @template T
   * @param {(connection: SqlDriverAdapter) => Promise<T>} work
   */
  const withConnection = async (work) => {
    const connection = await adapters.connect();
    try {
      return await work(connection);
    } finally {
      await connection.dispose();
    }
  };

  return {
    adapterFactory: {
      provider: adapters.provider,
      adapterName: adapters.adapterName,
      connect: () => tracked(() => adapters.connect()),
      connectToShadowDb: () => tracked(() => adapters.connectToShadowDb()),
    },

    // The wasm engine fails with "no such table: _prisma_migrations" where the native one
    // treats a missing history table as an empty history.
    ensureMigrationsTable: () =>
      withConnection(async (connection) => {
        await connection.executeScript(MIGRATIONS_TABLE_DDL);
      }),

    // The wasm engine's SQLite reset only deletes rows; `migrate reset` must leave an empty
    // database, so every table and view goes. Only `sqlite_sequence` (AUTOINCREMENT's table)
    // cannot be dropped, and the engine counts it as a non-empty schema (P3005), so the reset
    // database gets an empty migration history, which is what it has.
    reset: ({ filter }) =>
      withConnection(async (connection) => {
        const { rows } = await connection.queryRaw(
          statement(
            "SELECT type, name FROM sqlite_master WHERE type IN ('view', 'table') AND name NOT LIKE 'sqlite_%' ORDER BY type DESC",
          ),
        );
        const drops = rows
          .map(([type, name]) => ({ type: String(type), name: String(name) }))
          .filter(({ name }) => !filter.externalTables.includes(name))
          .map(({ type, name }) => `DROP ${type.toUpperCase()} ${quoteIdentifier(name)};`);
        await connection.executeScript(
          [
            'PRAGMA foreign_keys = OFF;',
            ...drops,
            'PRAGMA foreign_keys = ON;',
            MIGRATIONS_TABLE_DDL,
          ].join('\n'),
        );
      }),

    assertDatabaseExists: async () => {
      if (databaseFile !== null && !existsSync(databaseFile)) {
        throw new EngineError(
          `Database \`${basename(databaseFile)}\` does not exist at \`${databaseFile}\``,
          'P1003',
        );
      }
    },

    createDatabase: async () => {
      if (databaseFile === null) return { databaseName: ':memory:' };
      mkdirSync(dirname(databaseFile), { recursive: true });
      // Opening the file is what creates it.
      await withConnection(async () => {});
      return { databaseName: basename(databaseFile) };
    },

    close: async () => {
      for (const connection of connections.splice(0)) await connection.dispose();
    },
  };
}
