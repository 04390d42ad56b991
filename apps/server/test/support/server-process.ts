import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { freePort } from '@animal-store/local-ports';
import { inject } from 'vitest';
import { untilHealthy } from '../../testing/until-healthy.js';

/** The server's programs, built for this run from the working tree (server-build.ts). */
const built = (program: 'main' | 'keys') => join(inject('serverBuild'), `${program}.js`);

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Ends every server a test file started and left running (say, after a failed assertion). */
export function killLeftoverServers(): void {
  for (const child of running) child.kill('SIGKILL');
}

export interface ServerProcessOptions {
  /** Where its stdout (the logs) goes: nowhere by default, or a pipe to read. */
  stdout?: 'ignore' | 'pipe' | number;
  /** Node's own flags (`--import` of a module that watches it). */
  nodeFlags?: readonly string[];
}

/**
 * Starts the server as users do (`node main.js`), with `env` on top of ours (a variable given as undefined is not
 * set at all), and waits until it serves.
 */
export async function startServerProcess(
  env: Record<string, string | undefined>,
  options: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // Tests that stop a server have no load balancer to drain from; the drain's own test sets it.
    SHUTDOWN_DRAIN_MS: '0',
    ...env,
  };
  for (const [name, value] of Object.entries(environment)) {
    if (value === undefined) delete environment[name];
  }
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), built('main')], {
    env: environment,
    stdio: ['ignore', options.stdout ?? 'ignore', 'inherit'],
  });
  running.add(child);
  const exited = once(child, 'exit').then(([code]) => {
    running.delete(child);
    return code as number | null;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await untilHealthy(baseUrl, child, () => {
    child.kill('SIGKILL');
    return exited;
  });
  return { child, baseUrl, exited };
}

/** Every line a server started with `stdout: 'pipe'` writes to stdout, parsed, as it comes. */
export function logLinesOf(server: ServerProcess): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  const input = server.child.stdout as Readable;
  createInterface({ input }).on('line', (line) => lines.push(JSON.parse(line)));
  return lines;
}

/** A create on a server process, with `key`. */
export function createPet(baseUrl: string, key: string, name: string) {
  return fetch(`${baseUrl}/v1/pets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
}

/** How a command ended: its exit status and what it wrote. */
export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `program` (the server or its key command) to its end, as users do, with `env`
 * on top of ours. Async, so the test's event loop keeps noticing keep-alive connections a
 * server closes meanwhile.
 */
function runToExit(program: 'main' | 'keys', env: NodeJS.ProcessEnv, args: string[] = []) {
  return new Promise<CommandResult>((resolve) => {
    execFile(
      process.execPath,
      [built(program), ...args],
      { env: { ...process.env, ...env }, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

/** Runs the key command as users do, against `databaseUrl`. */
export function runKeys(databaseUrl: string, args: string[]): Promise<CommandResult> {
  return runToExit('keys', { DATABASE_URL: databaseUrl }, args);
}

/** Starts the server with `env`, for a start that is refused: it exits, and says why. */
export function runRefusedServer(env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return runToExit('main', { HOST: '127.0.0.1', PORT: '0', ...env });
}

/** A fresh key with room for every request a test makes. */
export async function createRoomyKey(databaseUrl: string): Promise<string> {
  const result = await runKeys(databaseUrl, [
    'create',
    '--label',
    'process test',
    '--plan',
    'enterprise',
    '--per-minute',
    '1000000',
    '--per-day',
    '100000000',
    '--json',
  ]);
  if (result.status !== 0) throw new Error(`keys create failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { key: string }).key;
}
