/**
 * For other packages' tests (`@animal-store/server/testing`): the real server, started as users
 * start it (`node dist/main.js`) on a fresh SQLite database, and its key command. turbo builds
 * `@animal-store/server` before the tests of the packages that depend on it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '@animal-store/local-ports';
import { untilHealthy } from './until-healthy.js';

const serverRoot = fileURLToPath(new URL('..', import.meta.url));

export interface LiveServer {
  /** The origin, e.g. `http://127.0.0.1:41234` (the contract's paths add `/v1`). */
  readonly baseUrl: string;
  /**
   * Creates a key on the server's database with `keys create … --json`. Async, so the test's
   * event loop keeps noticing keep-alive connections the server closes meanwhile.
   */
  createKey(plan: KeyPlan): Promise<string>;
  /** Revokes a key `createKey` made, with `keys revoke <id> --json`. */
  revokeKey(key: string): Promise<void>;
  /** SIGTERM, then the process's exit code once it has ended. */
  stop(): Promise<number | null>;
  /** Sends `signal` and returns at once, as an orchestrator or an operator's `kill` does. */
  kill(signal: NodeJS.Signals): void;
  /** The process's exit code (null when a signal ended it), once it has ended. */
  readonly exited: Promise<number | null>;
}

export type KeyPlan =
  | { plan: 'free' | 'pro' | 'business' }
  | { plan: 'enterprise'; perMinute: number; perDay: number };

/** A key with room for every request a test makes. */
export const ROOMY: KeyPlan = { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 };

export interface LiveServerOptions {
  /** Node's own flags, before `dist/main.js` (`startScriptFlags()` for those users start it with). */
  nodeFlags?: readonly string[];
  /** The port to listen on (say, one a load balancer knows); a free one by default. */
  port?: number;
  /** The folder holding `dist/main.js` and `dist/keys.js`: this package, or a deploy folder. */
  root?: string;
  /** The database to serve; by default a fresh SQLite file in a temp folder of its own. */
  databaseUrl?: string;
  /** The environment to start from; by default ours, without shared Redis or a public URL. */
  env?: NodeJS.ProcessEnv;
}

function ownEnvironment(): NodeJS.ProcessEnv {
  // A server of its own: no shared Redis counters, links on its own origin.
  const { PUBLIC_URL: _publicUrl, REDIS_URL: _redisUrl, ...inherited } = process.env;
  return inherited;
}

/** Node's flags in this package's start script (`node <flags> dist/main.js`), as `pnpm start` and the image run it. */
export async function startScriptFlags(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(serverRoot, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = manifest.scripts.start.trim().split(/\s+/);
  return words.slice(1, -1);
}

/** @param label names the temp folder and the keys, to tell the callers' leftovers apart */
export async function startLiveServer(
  label: string,
  options: LiveServerOptions = {},
): Promise<LiveServer> {
  const root = options.root ?? serverRoot;
  const main = join(root, 'dist', 'main.js');
  const keys = join(root, 'dist', 'keys.js');
  if (!existsSync(main)) {
    throw new Error(`${main} is missing: build @animal-store/server first (turbo does)`);
  }
  const folder = await mkdtemp(join(tmpdir(), `animal-store-${label}-`));
  const databaseUrl = options.databaseUrl ?? `file:${join(folder, 'store.db')}`;
  const port = options.port ?? (await freePort());
  const env = {
    // Stopped with no load balancer to drain from, it closes at once unless told otherwise.
    SHUTDOWN_DRAIN_MS: '0',
    ...(options.env ?? ownEnvironment()),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
  };
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeFlags ?? []), main], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const code = await exited;
    await rm(folder, { recursive: true, force: true });
    return code;
  };

  await untilHealthy(baseUrl, child, stop);

  const runKeys = async (args: readonly string[]) =>
    (await promisify(execFile)(process.execPath, [keys, ...args], { env, encoding: 'utf8' }))
      .stdout;
  /** The public id (`key_…`) of each key created, by the key itself. */
  const ids = new Map<string, string>();

  return {
    baseUrl,
    stop,
    exited,
    kill: (signal) => child.kill(signal),
    async createKey(plan) {
      const limits =
        plan.plan === 'enterprise'
          ? ['--per-minute', String(plan.perMinute), '--per-day', String(plan.perDay)]
          : [];
      const stdout = await runKeys([
        'create',
        '--label',
        `${label} test`,
        '--plan',
        plan.plan,
        ...limits,
        '--json',
      ]);
      const { id, key } = JSON.parse(stdout) as { id: string; key: string };
      ids.set(key, id);
      return key;
    },
    async revokeKey(key) {
      const id = ids.get(key);
      if (id === undefined) throw new Error('revokeKey: not a key createKey made');
      await runKeys(['revoke', id, '--json']);
    },
  };
}
