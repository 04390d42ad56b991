// @ts-check
/**
 * The one loader of Prisma's schema engine compiled to WebAssembly, shared by the CLI bridge
 * (bridge.mjs) and the in-process migrator (src/migrate.ts). It speaks the native engine's
 * JSON-RPC method names and closes the gaps between the wasm engine and the native one.
 *
 * @import { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils'
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import * as wasmBindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import { EngineError } from './engine-error.mjs';
import { postgresFlavor } from './postgresql.mjs';
import { sqliteFlavor } from './sqlite.mjs';

/**
 * What one kind of database adds to the wasm engine: its driver adapter and the commands the
 * wasm engine gets wrong or lacks for it.
 * @typedef {object} DatabaseFlavor
 * @property {SqlMigrationAwareDriverAdapterFactory} adapterFactory
 * @property {() => Promise<void>} ensureMigrationsTable
 * @property {(input: { filter: { externalTables: string[] } }) => Promise<void>} reset
 * @property {() => Promise<void>} assertDatabaseExists throws P1003 when it does not
 * @property {() => Promise<{ databaseName: string }>} createDatabase
 * @property {() => Promise<void>} close releases every connection so the process can exit
 */

/**
 * @typedef {object} SchemaEngineSession
 * @property {(method: string, params?: unknown) => Promise<unknown>} call runs one JSON-RPC method
 * @property {() => Promise<void>} close
 */

const ENGINE_WASM_FILE = 'schema_engine_bg.wasm';

// JSON-RPC method → SchemaEngine method, for what the wasm engine implements as is.
/** @type {Record<string, string>} */
const WASM_METHODS = {
  applyMigrations: 'applyMigrations',
  createMigration: 'createMigration',
  dbExecute: 'dbExecute',
  debugPanic: 'debugPanic',
  devDiagnostic: 'devDiagnostic',
  diagnoseMigrationHistory: 'diagnoseMigrationHistory',
  diff: 'diff',
  ensureConnectionValidity: 'ensureConnectionValidity',
  evaluateDataLoss: 'evaluateDataLoss',
  getDatabaseVersion: 'version',
  introspect: 'introspect',
  introspectSql: 'introspectSql',
  markMigrationApplied: 'markMigrationApplied',
  markMigrationRolledBack: 'markMigrationRolledBack',
  schemaPush: 'schemaPush',
};

// Methods that read `_prisma_migrations`, which the wasm engine fails on while it is missing.
const READS_MIGRATION_HISTORY = new Set([
  'devDiagnostic',
  'diagnoseMigrationHistory',
  'markMigrationApplied',
  'markMigrationRolledBack',
]);

// Methods that need the schema the migrations produce but, in the wasm engine, have no shadow
// database to replay them on: they only read it from a per-engine cache, which
// diagnoseMigrationHistory fills (through the shadow database) for the applied migrations.
// `migrate dev` applies every migration before calling them, so warming the cache first works.
const READS_MIGRATIONS_SCHEMA = new Set(['evaluateDataLoss', 'createMigration']);

/**
 * @param {string} url
 * @param {object} [options]
 * @param {string} [options.shadowDatabaseUrl] the datasource's shadow database, if configured
 * @returns {DatabaseFlavor}
 */
export function databaseFlavor(url, { shadowDatabaseUrl } = {}) {
  if (url.startsWith('file:')) return sqliteFlavor(url);
  const scheme = url.split(':')[0];
  if (scheme === 'postgres' || scheme === 'postgresql') {
    return postgresFlavor(url, { shadowDatabaseUrl });
  }
  throw new EngineError(
    `Unsupported database URL scheme "${scheme}:": use a "file:" URL for SQLite or a "postgresql:" URL.`,
    undefined,
  );
}

/**
 * The part of the WebAssembly JS API used here, which @types/node 20 does not declare. Read by a
 * name typed as any string, so that a type check with the DOM's declarations of it (the web app's
 * tests, which start the server in-process) takes this type as well.
 * @type {{
 *   instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }>,
 *   RuntimeError: ErrorConstructor,
 * }}
 */
const WebAssemblyApi = Reflect.get(globalThis, /** @type {string} */ ('WebAssembly'));

/**
 * Where the process keeps the one instantiation. The JS glue keeps the instance in a variable of
 * its module, which the process loads once, while it may load this module more than once (a test
 * runner loads a copy per project): a second instantiation would leave the first copy's engines
 * reading a memory that is no longer the glue's.
 */
const LOADED_WASM = Symbol.for('@animal-store/db: the schema engine instantiated');

/**
 * The CLI ships the wasm build of exactly its own engine version, while the published
 * @prisma/schema-engine-wasm holds another engine commit, so the CLI's wasm runs with that
 * package's JS glue. The build copies it beside the bundle (see tsup.config.ts), so that the
 * built package migrates without the Prisma CLI installed.
 */
async function readEngineWasm() {
  const bundled = new URL(`./${ENGINE_WASM_FILE}`, import.meta.url);
  if (existsSync(bundled)) return readFile(bundled);
  const cliFolder = dirname(createRequire(import.meta.url).resolve('prisma/package.json'));
  return readFile(join(cliFolder, 'build', ENGINE_WASM_FILE));
}

/**
 * The glue's imports, with every timer the engine sets unref'd. On PostgreSQL the engine sets a
 * 10 s timer that it never clears, which kept a process that had finished migrating (the key
 * command, a test) alive 10 s longer. A timer alone should not keep the process running:
 * whatever the engine waits for besides (a socket) does that.
 * @param {Record<string, unknown>} bindings
 */
function withUnrefTimers(bindings) {
  return Object.fromEntries(
    Object.entries(bindings).map(([name, binding]) => {
      if (!name.startsWith('__wbg_setTimeout_') || typeof binding !== 'function') {
        return [name, binding];
      }
      return [
        name,
        (/** @type {unknown[]} */ ...args) => {
          const timer = binding(...args);
          timer?.unref?.();
          return timer;
        },
      ];
    }),
  );
}

/**
 * Instantiates the wasm engine once per process, however many copies of this module it has
 * loaded (LOADED_WASM), and answers the engine's version. Node 20 cannot `import` a .wasm module.
 * @returns {Promise<string>}
 */
export function loadSchemaEngineWasm() {
  const loaded = /** @type {{ [LOADED_WASM]?: Promise<string> }} */ (globalThis);
  loaded[LOADED_WASM] ??= (async () => {
    installPanicRegistry();
    const { instance } = await WebAssemblyApi.instantiate(await readEngineWasm(), {
      './schema_engine_bg.js': withUnrefTimers(wasmBindings),
    });
    wasmBindings.__wbg_set_wasm(instance.exports);
    /** @type {() => void} */ (instance.exports.__wbindgen_start)();
    return wasmBindings.version();
  })();
  return loaded[LOADED_WASM];
}

/**
 * @typedef {object} PanicRegistry
 * @property {() => string} get
 * @property {(message: string) => void} set_message
 */

// The wasm panic hook hands the panic message to this global (the Prisma CLI installs the same
// one for its own wasm modules) before the instance traps with a bare "unreachable".
function installPanicRegistry() {
  const global = /** @type {{ PRISMA_WASM_PANIC_REGISTRY?: PanicRegistry }} */ (globalThis);
  let message = '';
  global.PRISMA_WASM_PANIC_REGISTRY ??= {
    get: () => message,
    set_message: (panic) => {
      message = `RuntimeError: ${panic}`;
    },
  };
  return global.PRISMA_WASM_PANIC_REGISTRY;
}

/**
 * The wasm engine rejects with plain errors that may carry a Prisma code, or traps on a panic.
 * @param {unknown} error
 */
export function asEngineError(error) {
  if (error instanceof EngineError) return error;
  if (error instanceof WebAssemblyApi.RuntimeError) {
    const panic = installPanicRegistry().get() || error.message;
    return new EngineError(panic, undefined, { isPanic: true });
  }
  if (error instanceof Error) {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
    return new EngineError(error.message, code);
  }
  return new EngineError(String(error), undefined);
}

/**
 * Starts a schema engine on the database at `url`.
 * @param {object} options
 * @param {string} options.url
 * @param {string} [options.shadowDatabaseUrl] the datasource's shadow database, if configured
 * @param {Array<[path: string, content: string]>} [options.datamodels] the Prisma schema files
 * @param {(line: string) => void} [options.onLog] receives the engine's JSON log lines
 * @param {boolean} [options.createDatabase] create the database (and its folder) first if missing
 * @returns {Promise<SchemaEngineSession>}
 */
export async function openSchemaEngine({
  url,
  shadowDatabaseUrl,
  datamodels,
  onLog = () => {},
  createDatabase,
}) {
  const flavor = databaseFlavor(url, { shadowDatabaseUrl });
  await loadSchemaEngineWasm();
  if (createDatabase) await flavor.createDatabase();

  /** @type {wasmBindings.SchemaEngine} */
  let engine;
  try {
    const adapterFactory = bindMigrationAwareSqlAdapterFactory(flavor.adapterFactory);
    engine = await wasmBindings.SchemaEngine.new({ datamodels }, onLog, adapterFactory);
  } catch (error) {
    await flavor.close();
    throw asEngineError(error);
  }

  /** @type {(method: string, params: any) => Promise<unknown>} */
  const callWasm = (method, params) => {
    const name = WASM_METHODS[method];
    const run = name && Reflect.get(engine, name);
    if (typeof run !== 'function') {
      throw new EngineError(`The wasm schema engine does not implement "${method}".`, undefined);
    }
    return run.call(engine, params);
  };

  return {
    async call(method, params) {
      try {
        if (READS_MIGRATION_HISTORY.has(method)) await flavor.ensureMigrationsTable();
        if (READS_MIGRATIONS_SCHEMA.has(method)) {
          await flavor.ensureMigrationsTable();
          const { migrationsList, filters } = /** @type {any} */ (params);
          await callWasm('diagnoseMigrationHistory', {
            migrationsList,
            filters,
            optInToShadowDatabase: true,
          });
        }
        if (method === 'reset') return await flavor.reset(/** @type {any} */ (params));
        if (method === 'createDatabase') return await flavor.createDatabase();
        return await callWasm(method, params);
      } catch (error) {
        throw asEngineError(error);
      }
    },
    async close() {
      engine.free();
      await flavor.close();
    },
  };
}
