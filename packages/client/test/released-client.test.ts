/**
 * Yesterday's client against today's server. The users of the client upgrade when they choose,
 * and the server is deployed more often: the client and contract of the last release, installed
 * from the tarballs that release recorded (`api/released/` of each package: the bytes the
 * registry has, kept in the repository so a fresh clone needs no tag and no registry of ours),
 * run the consumer program recorded with them against the server of this working tree.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ConsumerProject,
  createConsumerProject,
} from '@animal-store/consumer-project/consumer-project';
import { type LiveServer, ROOMY, startLiveServer } from '@animal-store/server/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';

const RELEASED_CLIENT = fileURLToPath(new URL('../api/released', import.meta.url));
const RELEASED_CONTRACT = fileURLToPath(new URL('../../contract/api/released', import.meta.url));

/** The one tarball a release recorded in `folder`. */
async function recordedTarball(folder: string): Promise<string> {
  const tarballs = (await readdir(folder)).filter((name) => name.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`${folder} holds ${tarballs.length} tarballs, not 1`);
  return join(folder, tarballs[0] as string);
}

let server: LiveServer;
let project: ConsumerProject;

beforeAll(async () => {
  server = await startLiveServer('released-client');
}, 60_000);

afterAll(async () => {
  await project?.remove();
  await server?.stop();
});

test('the last release’s client runs its consumer program against today’s server', async () => {
  project = await createConsumerProject({
    label: 'released',
    moduleSystem: 'esm',
    install: [await recordedTarball(RELEASED_CONTRACT), await recordedTarball(RELEASED_CLIENT)],
    files: { 'consumer.ts': await readFile(join(RELEASED_CLIENT, 'consumer.ts'), 'utf8') },
  });

  const compiled = await project.compile(['consumer.ts']);
  expect(compiled.stdout + compiled.stderr).toBe('');
  expect(compiled.status).toBe(0);

  const consumer = await project.run('consumer.ts', {
    ANIMAL_STORE_URL: server.baseUrl,
    ANIMAL_STORE_API_KEY: await server.createKey(ROOMY),
  });
  expect(consumer.stderr).toBe('');
  expect(consumer.status).toBe(0);
  const { passed } = JSON.parse(consumer.stdout) as { passed: string[] };
  expect(passed.length).toBeGreaterThan(0);
  // The install shares the registry and two cores with the other suites: see packed-consumer.
}, 480_000);
