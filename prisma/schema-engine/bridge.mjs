#!/usr/bin/env node
// @ts-check
/**
 * A stand-in for Prisma's native `schema-engine` binary, which the CLI cannot download here.
 * The Prisma CLI runs it through PRISMA_SCHEMA_ENGINE_BINARY (see with-bridge.mjs) in one of
 * three ways, and it answers like the native engine, delegating to the wasm engine:
 *
 *   bridge.mjs --version
 *   bridge.mjs --datasource '{"url":…}' cli can-connect-to-database | create-database
 *   bridge.mjs --datamodels <schema path>… --datasource '{"url":…}'
 *     then newline-delimited JSON-RPC 2.0 requests on stdin, replies on stdout, JSON log
 *     lines on stderr; it exits when stdin closes (1 = error, 101 = panic).
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { register } from 'tsx/esm/api';
import { EngineError } from './engine-error.mjs';

// The engine's database flavors share the driver adapters' TypeScript modules in src/adapters/
// with the server's client. `migrateDatabase` runs them bundled by the build; the CLI runs the
// bridge from source, before any build, so tsx compiles them as they load.
register();
/** @type {typeof import('./wasm-engine.mjs')} */
const { asEngineError, databaseFlavor, loadSchemaEngineWasm, openSchemaEngine } = await import(
  './wasm-engine.mjs'
);

// The error code of the native engine's JSON-RPC errors, which the CLI does not inspect.
const RPC_ERROR_CODE = 4466;
const EXIT_PANIC = 101;

let printRequests = 0;

/**
 * Native-engine log lines; the CLI reads `fields.error_code` of ERROR lines of this target.
 * @param {'INFO' | 'ERROR'} level
 * @param {string} message
 * @param {string} [errorCode]
 */
function logLine(level, message, errorCode) {
  const fields = errorCode ? { message, error_code: errorCode } : { message };
  process.stderr.write(`${JSON.stringify({ level, fields, target: 'schema_engine::logger' })}\n`);
}

/**
 * Ends the process with `code` once its output is written, by leaving the event loop nothing to
 * do: `process.exit()` can deadlock while V8 compiles on its worker threads
 * (nodejs/node#54918). Whatever still holds the loop 5 s later cannot stop the exit.
 * @param {number} code
 */
function exitAfterOutput(code) {
  // The first reason to exit wins: a panic's 101 over the clean close it leads to.
  process.exitCode ??= code;
  process.stdin.destroy();
  setTimeout(() => process.exit(), 5_000).unref();
}

/**
 * The URLs of the --datasource JSON.
 * @param {string | undefined} datasource
 * @returns {{ url: string, shadowDatabaseUrl?: string }}
 */
function datasourceUrls(datasource) {
  const { url, shadowDatabaseUrl } = datasource ? JSON.parse(datasource) : {};
  if (typeof url !== 'string' || url === '') {
    throw new EngineError('The datasource has no url: set DATABASE_URL.', undefined);
  }
  return typeof shadowDatabaseUrl === 'string' && shadowDatabaseUrl !== ''
    ? { url, shadowDatabaseUrl }
    : { url };
}

/**
 * The one-shot `cli` commands. The CLI shows the second and later stderr lines on failure.
 * @param {string | undefined} command
 * @param {string} url
 */
async function runCliCommand(command, url) {
  const flavor = databaseFlavor(url);
  try {
    if (command === 'can-connect-to-database') await flavor.assertDatabaseExists();
    else if (command === 'create-database') await flavor.createDatabase();
    else throw new EngineError(`Unknown cli command "${command}".`, undefined);
  } finally {
    await flavor.close();
  }
}

/**
 * @param {unknown} id
 * @param {EngineError} error
 */
function writeErrorReply(id, error) {
  const data = { is_panic: error.isPanic, message: error.message, error_code: error.code };
  const reply = {
    id,
    jsonrpc: '2.0',
    error: { code: RPC_ERROR_CODE, message: error.message, data },
  };
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}

/**
 * The wasm engine returns `diff` output in its result, where the native engine prints it
 * through a `print` request to the CLI, which is what the CLI shows (and writes to --output).
 * @param {unknown} result
 * @param {string} method
 */
function printingDiffOutput(result, method) {
  if (method !== 'diff' || typeof result !== 'object' || result === null) return result ?? null;
  const { stdout, ...rest } = /** @type {{ stdout?: string | null }} */ (result);
  if (stdout) {
    // The CLI prints `content` plus a newline, and answers; its answer needs no handling.
    const params = { content: stdout.replace(/\n$/, '') };
    const request = { id: `print-${++printRequests}`, jsonrpc: '2.0', method: 'print', params };
    process.stdout.write(`${JSON.stringify(request)}\n`);
  }
  return { ...rest, stdout: null };
}

/**
 * @param {string[]} datamodelPaths
 * @param {string | undefined} datasource
 */
function serveJsonRpc(datamodelPaths, datasource) {
  // Started at once but awaited per request, so that a bad schema or URL is answered as an
  // RPC error, which the CLI shows with its code.
  const session = (async () =>
    openSchemaEngine({
      ...datasourceUrls(datasource),
      // The CLI sends no --datamodels for `migrate diff`; the engine panics on an empty list.
      datamodels:
        datamodelPaths.length > 0
          ? datamodelPaths.map((path) => [path, readFileSync(path, 'utf8')])
          : undefined,
      onLog: (line) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`),
    }))();
  session.catch(() => {});

  /** @type {unknown} the id of the request being answered; they are answered one at a time */
  let inFlight;

  // A panic inside one of the engine's futures traps outside any promise chain. Without an
  // answer the CLI may report success with no output, so answer it and exit like the native
  // engine does.
  process.on('uncaughtException', (thrown) => {
    const error = asEngineError(thrown);
    if (inFlight === undefined) logLine('ERROR', error.message);
    else writeErrorReply(inFlight, error);
    exitAfterOutput(error.isPanic ? EXIT_PANIC : 1);
  });

  let panicked = false;

  /** @param {string} line */
  const answer = async (line) => {
    const message = line.trim() === '' ? {} : JSON.parse(line);
    // Replies from the CLI (to `print` requests) need no answer.
    if (typeof message.method !== 'string' || panicked) return;
    inFlight = message.id;
    try {
      const result = await (await session).call(message.method, message.params);
      const reply = {
        id: message.id,
        jsonrpc: '2.0',
        result: printingDiffOutput(result, message.method),
      };
      process.stdout.write(`${JSON.stringify(reply)}\n`);
    } catch (thrown) {
      const error = asEngineError(thrown);
      writeErrorReply(message.id, error);
      // A panicked wasm instance is unusable.
      if (error.isPanic) {
        panicked = true;
        exitAfterOutput(EXIT_PANIC);
      }
    } finally {
      inFlight = undefined;
    }
  };

  let answered = Promise.resolve();
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', (line) => {
    answered = answered
      .then(() => answer(line))
      .catch((error) => logLine('ERROR', `Unreadable request: ${error}`));
  });
  // The CLI closes stdin when done and waits for the exit.
  lines.on('close', () => {
    answered
      // A session that never started (the error was the answer) has nothing to close.
      .then(() =>
        session.then(
          (started) => started.close(),
          () => {},
        ),
      )
      .then(
        () => exitAfterOutput(0),
        (error) => {
          logLine('ERROR', asEngineError(error).message);
          exitAfterOutput(1);
        },
      );
  });
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      version: { type: 'boolean' },
      datamodels: { type: 'string', multiple: true },
      datasource: { type: 'string' },
      'enabled-preview-features': { type: 'string' },
      'extension-types': { type: 'string' },
    },
  });

  if (values.version) {
    process.stdout.write(`schema-engine-cli ${await loadSchemaEngineWasm()}\n`);
    return;
  }
  if (positionals[0] === 'cli') {
    logLine('INFO', `schema-engine bridge: cli ${positionals[1]}`);
    try {
      await runCliCommand(positionals[1], datasourceUrls(values.datasource).url);
    } catch (error) {
      const code = error instanceof EngineError ? error.code : undefined;
      logLine('ERROR', error instanceof Error ? error.message : String(error), code);
      process.exitCode = 1;
    }
    return;
  }
  serveJsonRpc(values.datamodels ?? [], values.datasource);
}

main().catch((error) => {
  logLine('ERROR', error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
