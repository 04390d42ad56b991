import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * The environment a developer's shell would have: without what the test runner, turbo and pnpm
 * add for the suite, and without the suite's own database and service settings. The developer's
 * own package-manager settings stay (`npm_config_store_dir`, the registry…): pnpm sets only a few
 * `npm_config_*` variables for scripts, and every other `npm_*` one.
 */
export function developerEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const suiteOnly =
    /^(TURBO_|npm_(?!config_)|npm_config_(user_agent|verify_deps_before_run)$|pnpm_|PNPM_|VITEST|TEST)|^(NODE_ENV|NODE_PATH|FORCE_TTY|BASE_URL|MODE|DEV|PROD|SSR|DATABASE_URL|PUBLIC_URL|REDIS_URL)$/;
  const inherited = Object.entries(process.env).filter(([name]) => !suiteOnly.test(name));
  return { ...Object.fromEntries(inherited), ...extra };
}

/** Runs a command to completion; a failure carries its output, so the test report shows why. */
export async function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync(command, args, {
      cwd: options.cwd,
      env: options.env ?? developerEnvironment(),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
  }
}

export interface Checkout {
  readonly root: string;
  remove(): Promise<void>;
}

/**
 * The repository as a fresh clone has it, in a temp folder: the files git tracks or would track
 * (so uncommitted work is tested too), with no build output, database or dependencies.
 */
export async function checkoutRepository(label: string): Promise<Checkout> {
  const root = await mkdtemp(join(tmpdir(), `animal-store-${label}-`));
  const { stdout } = await run(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--deduplicate'],
    { cwd: REPOSITORY_ROOT },
  );
  const files = stdout.split('\0').filter(Boolean);
  for (const file of files) await copyUnlessGone(join(REPOSITORY_ROOT, file), join(root, file));
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

/**
 * Copies `from` unless it is gone: git lists a tracked file deleted in the working tree (as a
 * fresh clone of the uncommitted work would not have it), and an untracked file that a build
 * running beside the suite writes and removes (tsup's `tsup.config.bundled_*.mjs` while it loads
 * its config) can vanish between git's listing and its copy.
 */
async function copyUnlessGone(from: string, to: string): Promise<void> {
  try {
    await cp(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * `pnpm install --frozen-lockfile`, as the README's set-up runs it, from the packages this
 * machine's store already holds: the suite needs no network.
 */
export async function installDependencies(checkout: Checkout): Promise<void> {
  await run('pnpm', ['install', '--frozen-lockfile', '--offline'], { cwd: checkout.root });
}
