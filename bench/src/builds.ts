import { createRequire } from 'node:module';
import { buildEnvironment, runCommand } from './commands.js';
import { BENCH_ROOT } from './repository.js';

/** Builds the server exactly as the repository's own scripts do: through turbo, from the root. */
export async function buildServer(root: string): Promise<void> {
  await runCommand('pnpm', ['turbo', 'run', 'build', '--filter=@animal-store/server'], {
    cwd: root,
    env: buildEnvironment(),
  });
}

/**
 * Emits the bare baseline as JavaScript (bench/dist/baseline), so that it runs on plain `node`
 * like the built server: under tsx it would carry a loader thread's memory in its RSS.
 */
export async function compileBaseline(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/lib/tsc.js');
  await runCommand(process.execPath, [tsc, '-p', 'tsconfig.baseline.json'], {
    cwd: BENCH_ROOT,
    env: buildEnvironment(),
  });
}
