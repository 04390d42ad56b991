import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { onCleanup } from './cleanup.js';

export interface ServerLaunch {
  /** Names the server in messages. */
  label: string;
  /** The script `node` runs, and its arguments. */
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  port: number;
  /** Where the server's stdout (its request log) goes: /dev/null unless asked otherwise. */
  stdoutFile: string;
}

export interface RunningServer {
  readonly label: string;
  readonly pid: number;
  readonly origin: string;
  /** SIGTERM, then SIGKILL if it has not exited after the server's own shutdown grace. */
  stop(): Promise<void>;
}

/** How long a server may take to migrate a fresh database and answer /readyz. */
const READY_TIMEOUT_MS = 90_000;

/** The servers finish in-flight requests for up to 10 s after SIGTERM. */
const STOP_TIMEOUT_MS = 15_000;

/** What the server last wrote to stderr, to say why it failed to start or died. */
const STDERR_TAIL_CHARS = 4_000;

function exitedAlready(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function waitUntilReady(child: ChildProcess, origin: string, stderr: () => string) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exitedAlready(child)) {
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}):\n${stderr()}`);
    }
    try {
      const response = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await delay(100);
  }
  throw new Error(`the server did not answer /readyz with 200 in time:\n${stderr()}`);
}

/** Starts `node <args>` and resolves once GET /readyz answers 200. */
export async function startServer(launch: ServerLaunch): Promise<RunningServer> {
  const stdout = openSync(launch.stdoutFile, 'a');
  const child = spawn(process.execPath, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ['ignore', stdout, 'pipe'],
  });
  closeSync(stdout);
  let stderrTail = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (exitedAlready(child)) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  const cleanup = onCleanup(`stop ${launch.label} server`, stop);
  const origin = `http://127.0.0.1:${launch.port}`;
  try {
    await waitUntilReady(child, origin, () => stderrTail);
  } catch (error) {
    await cleanup.now();
    throw new Error(
      `${launch.label}: ${error instanceof Error ? error.message : String(error)}`.trim(),
    );
  }
  if (child.pid === undefined) throw new Error(`${launch.label}: the server has no pid`);
  return { label: launch.label, pid: child.pid, origin, stop: cleanup.now };
}
