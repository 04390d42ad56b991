/**
 * Deploying the server alone: the build stage of apps/server/Dockerfile, run command for command
 * in a fresh copy of the repository, yields a folder that serves with nothing but `node`, far
 * from the repository, on a fresh SQLite database and on a fresh PostgreSQL database.
 */
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLiveServer } from '../../testing/live-server.js';
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
      const server = await startLiveServer(`deployed-${provider}`, {
        root: folder,
        databaseUrl: database.url,
        env: BARE_NODE_ENVIRONMENT,
      });
      try {
        const key = await server.createKey({ plan: 'free' });
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
        expect(await server.stop(), `${provider} server exit code`).toBe(0);
      }
    }
  });
});
