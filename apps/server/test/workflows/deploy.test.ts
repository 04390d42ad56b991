/**
 * Deploying the server alone: the build stage of apps/server/Dockerfile, run command for command
 * in a fresh copy of the repository, yields a folder that serves with nothing but `node`, far
 * from the repository, on a fresh SQLite database and on a fresh PostgreSQL database.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testing/live-server.js';
import {
  type Checkout,
  checkoutRepository,
  REPOSITORY_ROOT,
  run,
} from '../support/repository-checkout.js';
import { freshDatabase, type TestDatabase } from '../support/test-database.js';

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

/** Only what a machine with nothing but Node has: no pnpm, no repository, no suite settings. */
function bareNodeEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: '/usr/bin:/bin', HOME: tmpdir(), NODE_ENV: 'production', ...extra };
}

async function startDeployed(folder: string, databaseUrl: string) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['dist/main.js'], {
    cwd: folder,
    env: bareNodeEnvironment({
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`deployed server exited:\n${stderr}`);
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) return { child, baseUrl };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`deployed server did not become ready:\n${stderr}`);
}

async function createKeyWithDeployedCommand(folder: string, databaseUrl: string) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['dist/keys.js', 'create', '--label', 'deploy test', '--plan', 'free', '--json'],
    { cwd: folder, env: bareNodeEnvironment({ DATABASE_URL: databaseUrl }), encoding: 'utf8' },
  );
  return (JSON.parse(stdout) as { key: string }).key;
}

describe('the server deploy folder', () => {
  let checkout: Checkout | undefined;
  let outside: string | undefined;
  const databases: TestDatabase[] = [];

  afterAll(async () => {
    await checkout?.remove();
    if (outside) await rm(outside, { recursive: true, force: true });
    await Promise.all(databases.map((database) => database.drop()));
  });

  it('is made by the Dockerfile build steps and serves all three operations with plain node', async () => {
    const recipe = await dockerBuildRecipe();
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

    // Moved, and the repository deleted: nothing may point back into either place.
    const folder = join(outside, 'animal-store-server');
    await rename(built, folder);
    await checkout.remove();
    checkout = undefined;

    for (const provider of ['sqlite', 'postgresql'] as const) {
      const database = await freshDatabase(undefined, provider);
      databases.push(database);
      const server = await startDeployed(folder, database.url);
      try {
        const key = await createKeyWithDeployedCommand(folder, database.url);
        const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

        const created = await fetch(`${server.baseUrl}/v1/pets`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `Deployed on ${provider}`, categoryId: 3 }),
        });
        expect(created.status, provider).toBe(201);
        const pet = (await created.json()) as { id: number };

        const fetched = await fetch(`${server.baseUrl}/v1/pets/${pet.id}`, { headers });
        expect(fetched.status, provider).toBe(200);
        expect(await fetched.json()).toEqual({
          id: pet.id,
          name: `Deployed on ${provider}`,
          categoryId: 3,
          status: 'available',
        });

        const listed = await fetch(`${server.baseUrl}/v1/pets`, { headers });
        expect(listed.status, provider).toBe(200);
        expect(await listed.json()).toEqual([
          { id: pet.id, name: `Deployed on ${provider}`, categoryId: 3, status: 'available' },
        ]);
      } finally {
        server.child.kill('SIGTERM');
        const [code] = await once(server.child, 'exit');
        expect(code, `${provider} server exit code`).toBe(0);
      }
    }
  });
});
