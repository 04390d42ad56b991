import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '@animal-store/local-ports';
import { BENCH_QUOTA, createEnterpriseKey } from './api-keys.js';
import {
  createdPostgresDatabase,
  type DatabaseKind,
  freshDatabaseUrl,
  freshSqliteFile,
} from './databases.js';
import { BENCH_ROOT } from './repository.js';
import { type RunningServer, startServer } from './server-process.js';

export interface RunSettings {
  /** The run's temp folder: SQLite files, key files. */
  tempFolder: string;
  /** The Redis database the API servers count rate limits in, if Redis answers. */
  redisUrl: string | undefined;
  /** NODE_OPTIONS of every server under test (a heap cap for a soak, say). */
  serverNodeOptions: string;
  /** Variables the API servers get beside the bench's own (OpenTelemetry's, say). */
  serverEnv: Record<string, string>;
  /** Where the servers' stdout goes. */
  stdoutFile: string;
  /** Where each server writes its CPU profile, in a folder named after it; none when undefined. */
  cpuProfileFolder: string | undefined;
}

export interface StartedTarget {
  server: RunningServer;
  apiKey: string;
  /** Where an API server serves its Prometheus metrics; the bare baseline has none. */
  metricsOrigin?: string;
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

/**
 * Node's own flags for a server: `--cpu-prof` is refused in NODE_OPTIONS, so it goes on the
 * command line. The profile is written when the server exits after the bench's SIGTERM.
 */
function nodeFlags(settings: RunSettings, name: string): string[] {
  if (settings.cpuProfileFolder === undefined) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${join(settings.cpuProfileFolder, name)}`];
}

const BARE_DESCRIPTIONS: Record<DatabaseKind, string> = {
  sqlite: 'node:http + libsql, no framework (bench/src/baseline), SQLite',
  postgres:
    'node:http + pg (named statements, a pool of 10), no framework (bench/src/baseline), PostgreSQL',
};

/**
 * The bare node:http server in this package, on the database the API servers run on: a SQLite
 * file through libsql, or a PostgreSQL database of its own through pg. Its rate limits count in
 * the run's Redis database, as the API servers' do (in-process, as theirs then do, when the bench
 * finds no Redis): a ratio to it is to a server that waits on the same round trip.
 */
export function bareTarget(settings: RunSettings, database: DatabaseKind): BenchTarget {
  return {
    name: 'bare',
    description: `${BARE_DESCRIPTIONS[database]}${settings.redisUrl ? ' + Redis (ioredis)' : ''}`,
    database,
    isBaseline: true,
    async start() {
      const storage: Record<string, string> =
        database === 'sqlite'
          ? { DATABASE_PATH: await freshSqliteFile(settings.tempFolder, 'bare') }
          : { DATABASE_URL: await createdPostgresDatabase('bare') };
      const keyFile = join(settings.tempFolder, 'bare', 'key.json');
      await mkdir(join(settings.tempFolder, 'bare'), { recursive: true });
      const port = await freePort();
      const server = await startServer({
        label: 'bare',
        args: [...nodeFlags(settings, 'bare'), join(BENCH_ROOT, 'dist', 'baseline', 'main.js')],
        cwd: BENCH_ROOT,
        port,
        stdoutFile: settings.stdoutFile,
        env: serverEnvironment(settings, {
          PORT: String(port),
          HOST: '127.0.0.1',
          ...storage,
          ...(settings.redisUrl ? { REDIS_URL: settings.redisUrl } : {}),
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

/**
 * Node's flags in a server's start script (`node <flags> dist/main.js`), which `pnpm start` and
 * the image run: each revision is measured as it is deployed.
 */
async function startScriptFlags(serverRoot: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(serverRoot, 'package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  const words = manifest.scripts?.start?.trim().split(/\s+/) ?? [];
  if (words[0] !== 'node' || words.at(-1) !== 'dist/main.js') {
    throw new Error(`${serverRoot}/package.json: a start script "node … dist/main.js" expected`);
  }
  return words.slice(1, -1);
}

/**
 * The API server of a checkout (`root`), built, on a fresh database of `database`'s kind,
 * started with its start script's Node flags.
 */
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
      const metricsPort = await freePort();
      const env = serverEnvironment(settings, {
        // The caller's first, so that none of them can change what the bench itself sets.
        ...settings.serverEnv,
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        // Request logs and metrics stay on while measuring, as in production: recording them is
        // part of every request's cost.
        LOG_LEVEL: 'info',
        METRICS_PORT: String(metricsPort),
        DATABASE_URL: databaseUrl,
        // No load balancer to drain from (`--balancer` stops its balancer first): a stopped
        // server closes at once (older revisions ignore the setting).
        SHUTDOWN_DRAIN_MS: '0',
        ...(settings.redisUrl ? { REDIS_URL: settings.redisUrl } : {}),
      });
      const server = await startServer({
        label: name,
        args: [
          ...nodeFlags(settings, name),
          ...(await startScriptFlags(serverRoot)),
          join(serverRoot, 'dist', 'main.js'),
        ],
        cwd: serverRoot,
        port,
        stdoutFile: settings.stdoutFile,
        env,
      });
      return {
        server,
        apiKey: await createEnterpriseKey(serverRoot, env),
        metricsOrigin: `http://127.0.0.1:${metricsPort}`,
      };
    },
  };
}
