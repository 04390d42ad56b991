/**
 * Deploying the server alone: the build stage of apps/server/Dockerfile, run command for command
 * in a fresh copy of the repository, yields a folder that serves with nothing but `node`, far
 * from the repository, on a fresh SQLite database and on a fresh PostgreSQL database.
 */
import { lstat, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractExampleCases, runExample } from '@animal-store/contract/examples';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { exampleTransport } from '../../testing/example-transport.js';
import { ROOMY, startLiveServer } from '../../testing/live-server.js';
import { freshDatabase, type TestDatabase } from '../../testing/test-database.js';
import {
  type Checkout,
  checkoutRepository,
  REPOSITORY_ROOT,
  run,
} from '../support/repository-checkout.js';

const DOCKERFILE = join(REPOSITORY_ROOT, 'apps/server/Dockerfile');

/** The folder the Dockerfile deploys into, and the `RUN pnpm …` commands of its build stage. */
async function dockerBuildRecipe(): Promise<{ deployFolder: string; commands: string[][] }> {
  const dockerfile = await readFile(DOCKERFILE, 'utf8');
  const buildStage = dockerfile.split(/^FROM /m)[1] ?? '';
  const commands = [...buildStage.matchAll(/^RUN (pnpm .+)$/gm)].map((match) =>
    (match[1] as string).trim().split(/\s+/),
  );
  const deployFolder = /^COPY --from=build \S+ (\S+) /m.exec(dockerfile)?.[1];
  if (!deployFolder || commands.length === 0) throw new Error('unexpected Dockerfile shape');
  return { deployFolder, commands };
}

/**
 * The image's start command (its `CMD`), which must be the server package's start script word
 * for word: `pnpm start`, the image and the deploy command in docs/operations.md run the server with the same
 * Node flags.
 */
async function imageStartCommand(): Promise<string[]> {
  const dockerfile = await readFile(DOCKERFILE, 'utf8');
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  if (!cmd) throw new Error('the Dockerfile has no CMD in exec form');
  return JSON.parse(cmd) as string[];
}

interface Lockfile {
  importers: Record<string, { dependencies?: Record<string, { version: string }> }>;
  packages: Record<string, unknown>;
}

/**
 * What the lockfile pins, as `name@version`: every package, and the server's own production
 * dependencies (their locked versions carry peer suffixes, `3.52.1(zod@3.25.76)`, cut off here).
 */
async function lockedVersions(lockfile: string) {
  const { importers, packages } = parseYaml(await readFile(lockfile, 'utf8')) as Lockfile;
  const direct = Object.entries(importers['apps/server']?.dependencies ?? {});
  return {
    packages: new Set(Object.keys(packages)),
    serverDependencies: direct
      .filter(([, { version }]) => !version.startsWith('link:'))
      .map(([name, { version }]) => `${name}@${version.replace(/\(.*$/, '')}`),
  };
}

/**
 * `name@version` of every package installed in a deploy folder: the real directories of its
 * virtual store (the links beside them point at these). The workspace's own packages, built
 * from source for the deploy, are left out.
 */
async function installedPackages(folder: string): Promise<string[]> {
  const store = join(folder, 'node_modules/.pnpm');
  const installed: string[] = [];
  for (const entry of await readdir(store)) {
    const modules = join(store, entry, 'node_modules');
    const names = await readdir(modules).catch(() => []);
    for (const name of names) {
      const scoped = name.startsWith('@') ? await readdir(join(modules, name)) : [''];
      for (const inner of scoped) {
        const directory = join(modules, name, inner);
        if ((await lstat(directory)).isSymbolicLink()) continue;
        const manifest = JSON.parse(await readFile(join(directory, 'package.json'), 'utf8'));
        if (!manifest.name.startsWith('@animal-store/')) {
          installed.push(`${manifest.name}@${manifest.version}`);
        }
      }
    }
  }
  return installed;
}

/** Only what a machine with nothing but Node has: no pnpm, no repository, no suite settings. */
const BARE_NODE_ENVIRONMENT: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: tmpdir(),
  NODE_ENV: 'production',
};

describe('the server deploy folder', () => {
  let checkout: Checkout | undefined;
  let outside: string | undefined;
  const databases: TestDatabase[] = [];

  afterAll(async () => {
    await checkout?.remove();
    if (outside) await rm(outside, { recursive: true, force: true });
    await Promise.all(databases.map((database) => database.drop()));
  });

  it("is made by the Dockerfile build steps from the lockfile and serves every operation's examples with plain node, started as the image starts it", async () => {
    const recipe = await dockerBuildRecipe();
    const startCommand = await imageStartCommand();
    const { scripts } = JSON.parse(
      await readFile(join(REPOSITORY_ROOT, 'apps/server/package.json'), 'utf8'),
    ) as { scripts: { start: string } };
    expect(startCommand.join(' ')).toBe(scripts.start);
    expect(await readFile(join(REPOSITORY_ROOT, 'docs/operations.md'), 'utf8')).toContain(
      `DATABASE_URL=postgresql://… ${scripts.start}\n`,
    );
    expect(startCommand[0]).toBe('node');
    expect(startCommand.at(-1)).toBe('dist/main.js');
    expect(recipe.commands.map((command) => command.slice(0, 2).join(' '))).toEqual([
      'pnpm install',
      'pnpm deploy:server',
    ]);

    checkout = await checkoutRepository('deploy');
    outside = await mkdtemp(join(tmpdir(), 'animal-store-deployed-'));
    const built = join(outside, 'build-output');
    for (const command of recipe.commands) {
      const args = command.slice(1).map((arg) => (arg === recipe.deployFolder ? built : arg));
      // The only difference from the image build: packages come from this machine's store
      // (a deploy that asked the registry once hung for minutes on a slow answer).
      args.push('--offline');
      await run('pnpm', args, { cwd: checkout.root });
    }

    const locked = await lockedVersions(join(checkout.root, 'pnpm-lock.yaml'));
    const installed = await installedPackages(built);
    expect(locked.serverDependencies.length).toBeGreaterThan(5);
    expect(installed).toEqual(expect.arrayContaining(locked.serverDependencies));
    expect(installed.filter((pkg) => !locked.packages.has(pkg))).toEqual([]);

    // Moved, and the repository deleted: nothing may point back into either place.
    const folder = join(outside, 'animal-store-server');
    await rename(built, folder);
    await checkout.remove();
    checkout = undefined;

    for (const provider of ['sqlite', 'postgresql'] as const) {
      const database = await freshDatabase(undefined, provider);
      databases.push(database);
      const server = await startLiveServer(`deployed-${provider}`, {
        root: folder,
        databaseUrl: database.url,
        env: BARE_NODE_ENVIRONMENT,
        nodeFlags: startCommand.slice(1, -1),
      });
      try {
        const target = { baseUrl: server.baseUrl, apiKey: await server.createKey(ROOMY) };
        for (const example of contractExampleCases()) {
          const { problems } = await runExample(example, exampleTransport(target));
          expect(problems, `${provider}: ${example.title}`).toEqual([]);
        }
      } finally {
        expect(await server.stop(), `${provider} server exit code`).toBe(0);
      }
    }
  });
});
