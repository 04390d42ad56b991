import { spawn } from 'node:child_process';
import { onCleanup } from './cleanup.js';

export interface CommandOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** How much of a failed command's output is shown: its last lines say why it failed. */
const FAILURE_TAIL_CHARS = 4_000;

/**
 * Runs a command to completion and returns its stdout. Output is kept rather than streamed so
 * the bench's own report stays readable; it is shown when the command fails.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  { cwd, env = process.env }: CommandOptions,
): Promise<string> {
  return new Promise((resolve, reject) => {
    // A process group of its own, so that stopping it stops what it started (pnpm runs turbo,
    // turbo runs tsup): Ctrl-C during a long install or build must not leave any of them running.
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stop = onCleanup(`stop ${command}`, () => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    });
    let stdout = '';
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.on('error', (error) => {
      stop.dismiss();
      reject(error);
    });
    child.on('close', (code, signal) => {
      stop.dismiss();
      if (code === 0) return resolve(stdout);
      const how = signal ? `was killed by ${signal}` : `exited with ${code}`;
      reject(
        new Error(
          `${command} ${args.join(' ')} (in ${cwd}) ${how}:\n${output.slice(-FAILURE_TAIL_CHARS)}`,
        ),
      );
    });
  });
}

/**
 * The environment for building and installing: without NODE_OPTIONS, which is meant for the
 * server under test (a heap cap for a soak, say) and would starve a build or an install.
 */
export function buildEnvironment(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _forTheServer, ...env } = process.env;
  return env;
}
