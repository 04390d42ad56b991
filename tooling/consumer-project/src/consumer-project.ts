/**
 * A fresh npm project outside the workspace, as a user of the published packages makes one: it
 * installs them with plain npm (from their tarballs or from a registry), compiles its TypeScript
 * with `tsc --strict` for ES modules or CommonJS, and runs the result with `node`.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type ModuleSystem = 'esm' | 'commonjs';

/**
 * A package only the contract's OpenAPI builder needs: the generator, its zod converter, the
 * OpenAPI types, the YAML they read. None of them belongs in the install of a client's user.
 */
export const OPENAPI_BUILDER_PACKAGE = /openapi|open-api|yaml/i;

export interface ConsumerProjectOptions {
  /** Names the temp folder, to tell leftovers apart. */
  label: string;
  /** What its `.ts` files compile to: the project's `type` is `module` or `commonjs`. */
  moduleSystem: ModuleSystem;
  /** What `npm install` is given: tarball paths or `name@range` specs. */
  install: readonly string[];
  /** The project's `.npmrc` lines, e.g. a registry for a scope and its token. */
  npmrc?: readonly string[];
  /** The program's files, by their path in the project, e.g. `{ 'test/pets.test.ts': '…' }`. */
  files: Readonly<Record<string, string>>;
  /** Added to the environment of `npm install`, e.g. `PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD`. */
  installEnv?: Record<string, string>;
}

export interface CommandResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ConsumerProject {
  readonly folder: string;
  /** `tsc --strict` over `files` (names of its `.ts` files), emitting into `out/`. */
  compile(files: readonly string[]): Promise<CommandResult>;
  /** `node out/<name>.js` for the compiled `file`, with `env` added to the environment. */
  run(file: string, env: Record<string, string>): Promise<CommandResult>;
  /** `command` in the project's folder as its user types it (`npx …`), with `env` added. */
  exec(
    command: string,
    args: readonly string[],
    env: Record<string, string>,
  ): Promise<CommandResult>;
  /** The name of every package installed, however deep. */
  installedPackages(): Promise<string[]>;
  /** The `package.json` of an installed package. */
  installedManifest(name: string): Promise<Record<string, unknown>>;
  remove(): Promise<void>;
}

/** The TypeScript and Node types the workspace builds with, so the consumer checks with the same. */
function workspaceToolchain(): string[] {
  const require = createRequire(import.meta.url);
  return ['typescript', '@types/node'].map(
    (name) => `${name}@${(require(`${name}/package.json`) as { version: string }).version}`,
  );
}

/**
 * A user's shell: nothing of the pnpm run or test runner that started us (pnpm hands its scripts
 * `npm_*` variables, which plain npm would read as its own settings; Vitest's `VITEST*` ones would
 * tell a Vitest the project runs that it is a worker of ours).
 */
function userEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([name]) => !/^(npm_|vitest)/i.test(name));
  return { ...Object.fromEntries(inherited), ...extra };
}

/** Runs to completion and never throws: the caller asserts on the status and output. */
function runCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = userEnvironment(),
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      // An install from the registry beside the server's suites on two cores can take minutes.
      { cwd, env, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({
          status,
          stdout,
          stderr: stderr || (error && status === null ? error.message : ''),
        });
      },
    );
  });
}

function tsconfig(files: readonly string[]) {
  return {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: false,
      types: ['node'],
      outDir: 'out',
    },
    files,
  };
}

/**
 * npm's answer when the metadata it holds for a package names no version in the range asked for:
 * after a release the public registry's cache can serve a package's metadata from before it while
 * a dependant's is already new (seen in CI: `tldts@7.6.6` wanting `tldts-core@^7.6.6` a day after
 * both were out), and `--prefer-offline` then keeps that stale copy for the whole run.
 */
const STALE_METADATA = /\bETARGET\b|\bnotarget\b/;
const STALE_METADATA_RETRIES = 2;
const STALE_METADATA_PAUSE_MS = 15_000;

/**
 * `npm install` as a user runs it, from npm's cache where it can be. An install refused for stale
 * metadata is asked again with every package's metadata fetched anew, after a pause; any other
 * failure is the caller's at once.
 */
async function installWithNpm(
  folder: string,
  options: ConsumerProjectOptions,
): Promise<CommandResult> {
  const install = (freshness: '--prefer-offline' | '--prefer-online') =>
    runCommand(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        freshness,
        // A stalled registry connection must fail and retry, not hang the suite.
        '--fetch-timeout=30000',
        '--fetch-retries=4',
        ...options.install,
        ...workspaceToolchain(),
      ],
      folder,
      userEnvironment(options.installEnv),
    );
  let installed = await install('--prefer-offline');
  let retries = 0;
  while (
    installed.status !== 0 &&
    STALE_METADATA.test(installed.stderr) &&
    retries < STALE_METADATA_RETRIES
  ) {
    retries += 1;
    await sleep(STALE_METADATA_PAUSE_MS);
    installed = await install('--prefer-online');
  }
  if (installed.status === 0 || retries === 0) return installed;
  const asked = `(asked ${retries + 1} times, the last ${retries} with --prefer-online)`;
  return { ...installed, stderr: `${installed.stderr}\n${asked}` };
}

/** Makes the project and installs into it; throws with npm's output when the install fails. */
export async function createConsumerProject(
  options: ConsumerProjectOptions,
): Promise<ConsumerProject> {
  const folder = await mkdtemp(join(tmpdir(), `animal-store-consumer-${options.label}-`));
  const type = options.moduleSystem === 'esm' ? 'module' : 'commonjs';
  await writeFile(
    join(folder, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, type }, null, 2)}\n`,
  );
  if (options.npmrc) await writeFile(join(folder, '.npmrc'), `${options.npmrc.join('\n')}\n`);
  for (const [name, text] of Object.entries(options.files)) {
    await mkdir(dirname(join(folder, name)), { recursive: true });
    await writeFile(join(folder, name), text);
  }

  const installed = await installWithNpm(folder, options);
  if (installed.status !== 0) {
    await rm(folder, { recursive: true, force: true });
    throw new Error(`npm install failed in a consumer project:\n${installed.stderr}`);
  }

  const tsc = join(folder, 'node_modules', 'typescript', 'bin', 'tsc');
  return {
    folder,
    async compile(files) {
      const name = `tsconfig.${files.map((file) => basename(file, '.ts')).join('.')}.json`;
      await writeFile(join(folder, name), JSON.stringify(tsconfig(files), null, 2));
      return runCommand(process.execPath, [tsc, '-p', name], folder);
    },
    run(file, env) {
      const compiled = join(folder, 'out', `${basename(file, '.ts')}.js`);
      return runCommand(process.execPath, [compiled], folder, userEnvironment(env));
    },
    exec(command, args, env) {
      return runCommand(command, args, folder, userEnvironment(env));
    },
    async installedPackages() {
      const { stdout } = await runCommand('npm', ['query', '*'], folder);
      const nodes = JSON.parse(stdout) as { name: string; location: string }[];
      return [...new Set(nodes.filter((node) => node.location !== '').map((node) => node.name))];
    },
    async installedManifest(name) {
      const manifest = join(folder, 'node_modules', name, 'package.json');
      return JSON.parse(await readFile(manifest, 'utf8')) as Record<string, unknown>;
    },
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}
