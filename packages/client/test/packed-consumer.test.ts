/**
 * The contract and client packed as they would be published (`pnpm pack`), installed with plain
 * npm into a fresh project outside the workspace, type-checked there, and run against the live
 * server. It proves the tarballs are complete, their types resolve for a consumer, a misused
 * field fails that consumer's type check, the built code runs, and the OpenAPI document the
 * contract ships (`@animal-store/contract/openapi.json`) resolves and is the one the server serves.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LiveServer, ROOMY, startLiveServer } from '@animal-store/server/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';

const CLIENT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const CONTRACT = join(CLIENT, '..', 'contract');

// npm inherits nothing from the pnpm run that started the test (pnpm sets npm_* variables).
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
);

let server: LiveServer;
let folder: string;

function run(command: string, args: string[], cwd: string) {
  return spawnSync(command, args, { cwd, env: cleanEnv, encoding: 'utf8', timeout: 240_000 });
}

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

const CONSUMER = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createClient, type RateLimitState } from '@animal-store/client';
import type { Pet } from '@animal-store/contract';

// The document file, as require() and as import resolve it.
const openapiPath = createRequire(import.meta.url).resolve('@animal-store/contract/openapi.json');
const importedPath = fileURLToPath(import.meta.resolve('@animal-store/contract/openapi.json'));
if (importedPath !== openapiPath) throw new Error(\`\${importedPath} is not \${openapiPath}\`);
const openapi = readFileSync(openapiPath, 'utf8');

const client = createClient({
  baseUrl: process.env.ANIMAL_STORE_URL ?? '',
  apiKey: process.env.ANIMAL_STORE_API_KEY ?? '',
});

const created = await client.pets.createPet({ body: { name: 'Packed Rex', categoryId: 7 } });
if (created.status !== 201) throw new Error(\`createPet answered \${created.status}\`);
const pet: Pet = created.body;

const names: string[] = [];
for await (const each of client.pets.listAllPets({ limit: 1 })) names.push(each.name);

const denied = await createClient({ baseUrl: process.env.ANIMAL_STORE_URL ?? '', apiKey: 'nope' })
  .pets.listPets();
const deniedCode = denied.status === 401 ? denied.body.code : 'unexpected';
const state: RateLimitState | undefined = client.rateLimit;

console.log(JSON.stringify({ id: pet.id, names, deniedCode, limit: state?.limit, openapi }));
`;

const BAD_CONSUMER = `
import { createClient } from '@animal-store/client';

const client = createClient({ baseUrl: 'http://localhost', apiKey: 'key' });
await client.pets.createPet({ body: { name: 'Rex', categoryId: 'seven' } });
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    types: ['node'],
    outDir: 'out',
  },
  files: ['consumer.ts'],
};

beforeAll(async () => {
  await Promise.all([assertBuilt(CLIENT), assertBuilt(CONTRACT)]);
  server = await startLiveServer('client');
  folder = await mkdtemp(join(tmpdir(), 'animal-store-consumer-'));
});

afterAll(async () => {
  await server?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

test('the packed packages install, type-check and run in a fresh npm project', async () => {
  const tarballs = join(folder, 'tarballs');
  const project = join(folder, 'project');
  await mkdir(project, { recursive: true });
  for (const packageDir of [CONTRACT, CLIENT]) {
    const packed = run('pnpm', ['pack', '--pack-destination', tarballs], packageDir);
    expect(packed.status, packed.stderr).toBe(0);
  }
  const files = (await readdir(tarballs)).map((name) => join(tarballs, name)).sort();
  expect(files.map((file) => file.slice(dirname(file).length + 1))).toEqual([
    'animal-store-client-1.0.0.tgz',
    'animal-store-contract-1.0.0.tgz',
  ]);

  expect(run('npm', ['init', '-y'], project).status).toBe(0);
  expect(run('npm', ['pkg', 'set', 'type=module'], project).status).toBe(0);
  const installed = run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      // A stalled registry connection must fail and retry, not hang the suite.
      '--prefer-offline',
      '--fetch-timeout=30000',
      '--fetch-retries=4',
      ...files,
      '@ts-rest/core@3.52.1',
      'zod@3.25.76',
      'typescript@5.9.3',
      '@types/node@20.19.25',
    ],
    project,
  );
  expect(installed.status, installed.stderr).toBe(0);
  // The client's `workspace:*` became the contract's real version in the tarball.
  const dependency = run(
    'npm',
    ['pkg', 'get', 'dependencies'],
    join(project, 'node_modules', '@animal-store', 'client'),
  );
  expect(JSON.parse(dependency.stdout)).toEqual({ '@animal-store/contract': '1.0.0' });

  await writeFile(join(project, 'consumer.ts'), CONSUMER);
  await writeFile(join(project, 'bad-consumer.ts'), BAD_CONSUMER);
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  await writeFile(
    join(project, 'tsconfig.bad.json'),
    JSON.stringify({ extends: './tsconfig.json', files: ['bad-consumer.ts'] }),
  );
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');

  const bad = run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.bad.json'], project);
  expect(bad.status).not.toBe(0);
  expect(bad.stdout).toMatch(/bad-consumer\.ts\(5,\d+\): error TS2322: .*'string'.*'number'/);

  const good = run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
  expect(good.stdout + good.stderr).toBe('');
  expect(good.status).toBe(0);

  const consumer = spawnSync(process.execPath, [join(project, 'out', 'consumer.js')], {
    cwd: project,
    env: {
      ...cleanEnv,
      ANIMAL_STORE_URL: server.baseUrl,
      ANIMAL_STORE_API_KEY: await server.createKey(ROOMY),
    },
    encoding: 'utf8',
  });
  expect(consumer.stderr).toBe('');
  const served = await (await fetch(`${server.baseUrl}/v1/openapi.json`)).text();
  expect(JSON.parse(consumer.stdout)).toEqual({
    id: 1,
    names: ['Packed Rex'],
    deniedCode: 'unauthorized',
    limit: 100_000,
    // Byte for byte what the server (without PUBLIC_URL) answers at /v1/openapi.json.
    openapi: served,
  });
  expect(JSON.parse(served).openapi).toMatch(/^3\./);
  // An install from the registry and a type-check: about 100 s alone, and more than twice that
  // when the server's suites share the two cores.
}, 480_000);
