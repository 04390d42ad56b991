/**
 * A user's program: it installs `@animal-store/client` and `@animal-store/contract` from a
 * registry or their tarballs, compiles with `tsc --strict`, and calls the server named by
 * ANIMAL_STORE_URL with the key ANIMAL_STORE_API_KEY. A result type that stops narrowing fails
 * the compile; an answer that changed fails the run. It prints the checks it passed as JSON.
 *
 * Each release records this file beside the client it shipped with (`api/released/`), so that
 * the test command can run the last release's program, on the last release's client, against
 * today's server. It is plain enough to compile as ES modules and as CommonJS (no top-level
 * await, no `import.meta`), and makes its own pets, so any number of runs can share a server.
 */
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { createClient, type DeprecationNotice, type RateLimitState } from '@animal-store/client';
import { MAX_INTEGER_ID, type Pet } from '@animal-store/contract';

const passed: string[] = [];

async function check(name: string, body: () => Promise<void>): Promise<void> {
  await body();
  passed.push(name);
}

async function main(): Promise<void> {
  const notices: DeprecationNotice[] = [];
  const client = createClient({
    baseUrl: process.env.ANIMAL_STORE_URL ?? '',
    apiKey: process.env.ANIMAL_STORE_API_KEY ?? '',
    onDeprecation: (notice) => notices.push(notice),
  });
  const run = randomUUID();
  let created: Pet | undefined;
  const pending: number[] = [];

  await check('create without status', async () => {
    const result = await client.pets.createPet({ body: { name: `Rex ${run}`, categoryId: 7 } });
    if (result.status !== 201) assert.fail(`createPet answered ${result.status}`);
    created = result.body;
    assert.equal(created.status, 'available');
    assert.equal(created.name, `Rex ${run}`);
  });

  await check('filtered list', async () => {
    for (const index of [1, 2, 3]) {
      const result = await client.pets.createPet({
        body: { name: `Pending ${index} ${run}`, categoryId: 3, status: 'pending' },
      });
      if (result.status !== 201) assert.fail(`createPet answered ${result.status}`);
      pending.push(result.body.id);
    }
    const page = await client.pets.listPets({ query: { status: 'pending', limit: 100 } });
    if (page.status !== 200) assert.fail(`listPets answered ${page.status}`);
    assert.ok(page.body.every((pet) => pet.status === 'pending'));
    assert.ok(page.body.some((pet) => pet.id === pending[0]));
  });

  await check('page iterator', async () => {
    const seen: number[] = [];
    for await (const pet of client.pets.listAllPets({ status: 'pending', limit: 1 })) {
      seen.push(pet.id);
    }
    assert.deepEqual(
      seen.filter((id) => pending.includes(id)),
      pending,
    );
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
    );
    assert.equal(new Set(seen).size, seen.length);
  });

  await check('deprecated get', async () => {
    const id = created?.id ?? assert.fail('no pet was created');
    // The client marks getPet deprecated; calling it anyway is what this check is for.
    const found = await client.pets.getPet({ params: { petId: id } });
    if (found.status !== 200) assert.fail(`getPet answered ${found.status}`);
    assert.deepEqual(found.body, created);
    assert.equal(notices.length, 1);
    assert.equal(notices[0]?.operation, 'getPet');
    assert.ok(notices[0]?.sunsetAt instanceof Date);
  });

  await check('404 narrowing', async () => {
    const missing = await client.pets.getPet({ params: { petId: MAX_INTEGER_ID } });
    if (missing.status !== 404) assert.fail(`getPet answered ${missing.status}`);
    // Compiles only while a 404's body is narrowed to its one code.
    const code: 'not_found' = missing.body.code;
    assert.equal(code, 'not_found');
  });

  await check('400 narrowing', async () => {
    const invalid = await client.pets.createPet({ body: { name: ' ', categoryId: 7 } });
    if (invalid.status !== 400) assert.fail(`createPet answered ${invalid.status}`);
    // Compiles only while a 400's body is narrowed to createPet's 400 codes.
    const code: 'validation_failed' | 'malformed_json' | 'malformed_request' = invalid.body.code;
    assert.equal(code, 'validation_failed');
    assert.deepEqual(
      invalid.body.details?.map((detail) => detail.path),
      ['name'],
    );
  });

  await check('rate-limit state', async () => {
    const state: RateLimitState | undefined = client.rateLimit;
    assert.ok(state, 'no rate-limit state after a response');
    assert.ok(state.limit > 0 && state.remaining >= 0 && state.remaining < state.limit);
    assert.ok(state.reset > Date.now() / 1000 - 1);
  });
}

main().then(
  () => process.stdout.write(`${JSON.stringify({ passed })}\n`),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
