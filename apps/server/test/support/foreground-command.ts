/**
 * A command run as a terminal runs one in the foreground: in a process group of its own, so a
 * signal to the group reaches every process it started, as Ctrl-C does. Its output is kept for
 * the test's report.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface ForegroundCommand {
  readonly child: ChildProcess;
  /** Everything it has written to stdout and stderr so far. */
  output(): string;
  /**
   * Undefined while it runs and prints; once it has exited, or printed nothing for `quietMs`,
   * how, with the end of its output. A wait on a busy machine is judged by this rather than by
   * its length: a start that builds keeps printing, however slowly, where a hung one falls silent.
   */
  stuckReport(quietMs: number): string | undefined;
  /** Sends `signal` to its whole process group; resolves once the command itself has exited. */
  signalGroup(signal: NodeJS.Signals): Promise<void>;
}

export function startInForeground(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): ForegroundCommand {
  const child = spawn(command, args, {
    ...options,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  let lastPrintedAt = Date.now();
  const keep = (chunk: Buffer) => {
    output += chunk;
    lastPrintedAt = Date.now();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const running = () => child.exitCode === null && child.signalCode === null;
  const exitReport = () =>
    running()
      ? undefined
      : `${command} exited (${child.exitCode ?? child.signalCode}):\n${output.slice(-6000)}`;
  return {
    child,
    output: () => output,
    stuckReport(quietMs) {
      const quietFor = Date.now() - lastPrintedAt;
      if (quietFor < quietMs) return exitReport();
      return `${command} has printed nothing for ${Math.round(quietFor / 1000)} s:\n${output.slice(-6000)}`;
    },
    async signalGroup(signal) {
      try {
        process.kill(-(child.pid as number), signal);
      } catch (error) {
        // The whole group has already gone.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      if (running()) await exited;
    },
  };
}

/** Every process whose working folder is inside `root`, as `pid command line`. */
export async function processesInside(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (cwd === root.replace(/\/$/, '') || cwd.startsWith(`${root}/`)) {
      const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      found.push(`${pid} ${commandLine.replaceAll('\0', ' ')}`);
    }
  }
  return found;
}

/** The processes still inside `root` once those already on their way out have had `graceMs`. */
export async function processesLeftInside(root: string, graceMs = 20_000): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  let left = await processesInside(root);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = await processesInside(root);
  }
  return left;
}

/**
 * Ends at once every process working inside `root`, whatever its process group: what a failed
 * test left running there, before the folder is removed.
 */
export async function killProcessesInside(root: string): Promise<void> {
  for (const line of await processesInside(root)) {
    try {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    } catch {
      // It ended on its own meanwhile.
    }
  }
}
