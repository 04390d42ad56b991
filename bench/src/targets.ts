import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BENCH_QUOTA, createEnterpriseKey } from './api-keys.js';
import { type DatabaseKind, freshDatabaseUrl, freshSqliteFile } from './databases.js';
import { freePort } from './ports.js';
import { BENCH_ROOT } from './repository.js';
import { type RunningServer, startServer } from './server-process.js';

export interface RunSettings {
  /** The run's temp folder: SQLite files, key files. */
  tempFolder: string;
  /** The Redis database the API servers count rate limits in, if Redis answers. */
  redisUrl: string | undefined;
  /** NODE_OPTIONS of every server under test (a heap cap for a soak, say). */
  serverNodeOptions: string;
  /** Where the servers' stdout goes. */
  stdoutFile: string;
}

export interface StartedTarget {
  server: RunningServer;
  apiKey: string;
}

/** One server under test: a row label, what it is, and how to start it on a fresh database. */
export interface BenchTarget {
  name: string;
  description: string;
  database: DatabaseKind;
  isBaseline: boolean;
  start(): Promise<StartedTarget>;
}

/**
 * Only what a process needs from the caller's environment: a PUBLIC_URL, DATABASE_URL or
 * LOG_LEVEL of the caller's shell must not change what is measured.
 */
function serverEnvironment(settings: RunSettings, own: Record<string, string>) {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  if (settings.serverNodeOptions.trim() !== '') env.NODE_OPTIONS = settings.serverNodeOptions;
  return { ...env, ...own };
}

/** The bare node:http + libsql server in this package (always SQLite). */
export function bareTarget(settings: RunSettings): BenchTarget {
  return {
    name: 'bare',
    description: 'node:http + libsql, no framework (bench/src/baseline), SQLite',
    database: 'sqlite',
    isBaseline: true,
    async start() {
      const databasePath = await freshSqliteFile(settings.tempFolder, 'bare');
      const keyFile = join(settings.tempFolder, 'bare', 'key.json');
      const port = await freePort();
      const server = await startServer({
        label: 'bare',
        args: [join(BENCH_ROOT, 'dist', 'baseline', 'main.js')],
        cwd: BENCH_ROOT,
        port,
        stdoutFile: settings.stdoutFile,
        env: serverEnvironment(settings, {
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_PATH: databasePath,
          KEY_FILE: keyFile,
          KEY_PER_MINUTE: String(BENCH_QUOTA.perMinute),
          KEY_PER_DAY: String(BENCH_QUOTA.perDay),
        }),
      });
      const { key } = JSON.parse(await readFile(keyFile, 'utf8')) as { key: string };
      return { server, apiKey: key };
    },
  };
}

/** The API server of a checkout (`root`), built, on a fresh database of `database`'s kind. */
export function apiServerTarget(
  name: string,
  description: string,
  root: string,
  database: DatabaseKind,
  settings: RunSettings,
): BenchTarget {
  const serverRoot = join(root, 'apps', 'server');
  return {
    name,
    description,
    database,
    isBaseline: false,
    async start() {
      const databaseUrl = await freshDatabaseUrl(database, settings.tempFolder, name);
      const port = await freePort();
      const env = serverEnvironment(settings, {
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        // Request logs and metrics stay on while measuring, as in production: recording them is
        // part of every request's cost.
        LOG_LEVEL: 'info',
        METRICS_PORT: String(await freePort()),
        DATABASE_URL: databaseUrl,
        ...(settings.redisUrl ? { REDIS_URL: settings.redisUrl } : {}),
      });
      const server = await startServer({
        label: name,
        args: [join(serverRoot, 'dist', 'main.js')],
        cwd: serverRoot,
        port,
        stdoutFile: settings.stdoutFile,
        env,
      });
      return { server, apiKey: await createEnterpriseKey(serverRoot, env) };
    },
  };
}
