/**
 * The contract and client packed as they would be published (`pnpm pack`), installed with plain
 * npm into a fresh project outside the workspace, type-checked there, and run against the live
 * server. It proves the tarballs are complete, their types resolve for a consumer, a misused
 * field fails that consumer's type check, the built code runs (the consumer program every
 * release records), the OpenAPI builder's packages stay out of the install, and the OpenAPI
 * document the contract ships (`@animal-store/contract/openapi.json`) resolves and is the one the
 * server serves.
 *
 * @module-tag node-runtime: the packed packages as users install and load them
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ConsumerProject,
  createConsumerProject,
  OPENAPI_BUILDER_PACKAGE,
} from '@animal-store/consumer-project/consumer-project';
import { type LiveServer, ROOMY, startLiveServer } from '@animal-store/server/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CONSUMER_CHECKS, CONSUMER_PROGRAM } from './support/consumer-expectations.js';

const CLIENT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const CONTRACT = join(CLIENT, '..', 'contract');

interface Manifest {
  name: string;
  version: string;
}

const manifestOf = async (packageDir: string) =>
  JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as Manifest;

/** The file name `npm pack` and `pnpm pack` give a package: `@scope/name` becomes `scope-name`. */
const tarballName = ({ name, version }: Manifest) =>
  `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;

async function newestFile(directory: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith('.test.ts')) continue;
    newest = Math.max(newest, (await stat(join(entry.parentPath, entry.name))).mtimeMs);
  }
  return newest;
}

/** Fails fast with the fix when a package's dist is missing or older than its sources. */
async function assertBuilt(packageDir: string) {
  const built = await stat(join(packageDir, 'dist', 'index.js')).catch(() => undefined);
  if (!built || built.mtimeMs < (await newestFile(join(packageDir, 'src')))) {
    throw new Error(`${packageDir}/dist is missing or stale: run the package's build first`);
  }
}

/** ES modules only: where `import` and `require` find the document the contract ships. */
const OPENAPI_DOCUMENT = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const openapiPath = createRequire(import.meta.url).resolve('@animal-store/contract/openapi.json');
const importedPath = fileURLToPath(import.meta.resolve('@animal-store/contract/openapi.json'));
if (importedPath !== openapiPath) throw new Error(\`\${importedPath} is not \${openapiPath}\`);
process.stdout.write(readFileSync(openapiPath, 'utf8'));
`;

const BAD_CONSUMER = `
import { createClient } from '@animal-store/client';

const client = createClient({ baseUrl: 'http://localhost', apiKey: 'key' });
await client.pets.createPet({ body: { name: 'Rex', categoryId: 'seven' } });
`;

let server: LiveServer;
let tarballs: string;
let project: ConsumerProject;

beforeAll(async () => {
  await Promise.all([assertBuilt(CLIENT), assertBuilt(CONTRACT)]);
  server = await startLiveServer('client');
  tarballs = await mkdtemp(join(tmpdir(), 'animal-store-tarballs-'));
}, 60_000);

afterAll(async () => {
  await project?.remove();
  await server?.stop();
  if (tarballs) await rm(tarballs, { recursive: true, force: true });
});

test('the packed packages install, type-check and run in a fresh npm project', async () => {
  const [contract, client] = await Promise.all([manifestOf(CONTRACT), manifestOf(CLIENT)]);
  for (const packageDir of [CONTRACT, CLIENT]) {
    const packed = spawnSync('pnpm', ['pack', '--pack-destination', tarballs], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    expect(packed.status, packed.stderr).toBe(0);
  }
  expect((await readdir(tarballs)).sort()).toEqual([tarballName(client), tarballName(contract)]);

  project = await createConsumerProject({
    label: 'packed',
    moduleSystem: 'esm',
    install: [tarballName(contract), tarballName(client)].map((name) => join(tarballs, name)),
    files: {
      'consumer.ts': await readFile(CONSUMER_PROGRAM, 'utf8'),
      'openapi-document.ts': OPENAPI_DOCUMENT,
      'bad-consumer.ts': BAD_CONSUMER,
    },
  });
  // The client's `workspace:*` became the contract's version in the tarball.
  expect((await project.installedManifest(client.name)).dependencies).toEqual({
    [contract.name]: contract.version,
  });
  const installed = await project.installedPackages();
  expect(installed.filter((name) => OPENAPI_BUILDER_PACKAGE.test(name))).toEqual([]);

  const bad = await project.compile(['bad-consumer.ts']);
  expect(bad.status).not.toBe(0);
  expect(bad.stdout).toMatch(/bad-consumer\.ts\(5,\d+\): error TS2322: .*'string'.*'number'/);

  const good = await project.compile(['consumer.ts', 'openapi-document.ts']);
  expect(good.stdout + good.stderr).toBe('');
  expect(good.status).toBe(0);

  const env = {
    ANIMAL_STORE_URL: server.baseUrl,
    ANIMAL_STORE_API_KEY: await server.createKey(ROOMY),
  };
  const consumer = await project.run('consumer.ts', env);
  expect(consumer.stderr).toBe('');
  expect(JSON.parse(consumer.stdout)).toEqual({ passed: CONSUMER_CHECKS });

  const document = await project.run('openapi-document.ts', env);
  // Byte for byte what the server (without PUBLIC_URL) answers at /v1/openapi.json.
  expect(document.stdout).toBe(await (await fetch(`${server.baseUrl}/v1/openapi.json`)).text());
  expect(JSON.parse(document.stdout).openapi).toMatch(/^3\./);
  // An install from the registry and a type-check: about 100 s alone, and more than twice that
  // when the server's suites share the two cores.
}, 480_000);
