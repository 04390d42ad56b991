/**
 * Pet ids are 64-bit on both databases and served as JSON numbers up to 2^53 − 1 (issue 14): with
 * the id sequence moved past 2^31, and up to 2^53 − 1, every operation works as it does on small
 * ids, and the database creates no id beyond what JSON carries exactly.
 */
import type { DatabaseClient } from '@animal-store/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PROVIDER } from '../testing/test-database.js';
import { startTestServer, type TestServer } from './support/test-server.js';

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

const INT32_MAX = 2 ** 31 - 1;
const LARGEST_ID = Number.MAX_SAFE_INTEGER;

/** Makes the next pet created get `nextId`, as if that many pets had been created before. */
async function moveIdSequence(db: DatabaseClient, nextId: number) {
  const last = BigInt(nextId) - 1n;
  if (TEST_PROVIDER === 'postgresql') {
    await db.$queryRawUnsafe(`SELECT setval('pets_id_seq', ${last})`);
    return;
  }
  // AUTOINCREMENT continues after the largest of sqlite_sequence's entry and the ids in use.
  await db.$executeRawUnsafe(`DELETE FROM sqlite_sequence WHERE name = 'pets'`);
  await db.$executeRawUnsafe(`INSERT INTO sqlite_sequence (name, seq) VALUES ('pets', ${last})`);
}

function nextCursor(res: { headers: Headers }): string | undefined {
  const link = res.headers.get('link')?.match(/^<([^>]+)>; rel="next"$/)?.[1];
  return link === undefined ? undefined : (new URL(link).searchParams.get('cursor') ?? undefined);
}

/** Every page of `/v1/pets?limit=…`, following the cursors. */
async function allPages(api: TestServer, query: string): Promise<Pet[][]> {
  const pages: Pet[][] = [];
  let cursor: string | undefined;
  do {
    const after = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await api.request(`/v1/pets?${query}${after}`);
    expect(res.status).toBe(200);
    pages.push(await res.json());
    cursor = nextCursor(res);
  } while (cursor !== undefined);
  return pages;
}

function create(api: TestServer, pet: Omit<Pet, 'id'>, idempotencyKey?: string) {
  const headers = idempotencyKey ? { 'idempotency-key': idempotencyKey } : undefined;
  return api.request('/v1/pets', { method: 'POST', json: pet, headers });
}

async function created(api: TestServer, pet: Omit<Pet, 'id'>, idempotencyKey?: string) {
  const res = await create(api, pet, idempotencyKey);
  expect(res.status, await res.clone().text()).toBe(201);
  const body: Pet = await res.json();
  expect(res.headers.get('location')).toBe(`/v1/pets/${body.id}`);
  return body;
}

async function expectServed(api: TestServer, pet: Pet) {
  const res = await api.request(`/v1/pets/${pet.id}`);
  expect(res.status, String(pet.id)).toBe(200);
  expect(await res.json()).toEqual(pet);
}

describe('pet ids past 2^31', () => {
  let api: TestServer;
  const pets: Pet[] = [];

  beforeAll(async () => {
    api = await startTestServer();
    await moveIdSequence(api.db, INT32_MAX);
    for (const [index, status] of ['available', 'sold', 'available', 'available'].entries()) {
      pets.push(await created(api, { name: `Big ${index}`, categoryId: 2, status }));
    }
  });
  afterAll(() => api.close());

  it('are assigned in order across 2^31 − 1, 2^31 and beyond', () => {
    expect(pets.map((pet) => pet.id)).toEqual([INT32_MAX, 2 ** 31, 2 ** 31 + 1, 2 ** 31 + 2]);
  });

  it('are served by getPet', async () => {
    for (const pet of pets) await expectServed(api, pet);
    expect((await api.request(`/v1/pets/${2 ** 31 + 3}`)).status).toBe(404);
  });

  it('are listed in order, page by page, with cursors past 2^31', async () => {
    const pages = await allPages(api, 'limit=1');
    expect(pages).toEqual(pets.map((pet) => [pet]));
    const available = await allPages(api, 'limit=2&status=available');
    expect(available.flat()).toEqual(pets.filter((pet) => pet.status === 'available'));
    expect(available).toHaveLength(2);
  });

  it('are replayed by an Idempotency-Key: the same pet, the same id', async () => {
    const pet = { name: 'Once', categoryId: 7, status: 'pending' };
    const first = await created(api, pet, 'int64-once');
    expect(first.id).toBe(2 ** 31 + 3);
    const retry = await create(api, pet, 'int64-once');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(first);
    await expectServed(api, first);
  });
});

describe('pet ids up to 2^53 − 1', () => {
  let api: TestServer;

  beforeAll(async () => {
    api = await startTestServer();
    await moveIdSequence(api.db, LARGEST_ID - 1);
  });
  afterAll(() => api.close());

  it('reach 2^53 − 1 exactly, served, listed and replayed', async () => {
    const below = await created(api, { name: 'Penultimate', categoryId: 1, status: 'available' });
    const lastPet = { name: 'Last', categoryId: LARGEST_ID, status: 'available' };
    const last = await created(api, lastPet, 'int64-last');
    expect([below.id, last.id]).toEqual([LARGEST_ID - 1, LARGEST_ID]);
    await expectServed(api, below);
    await expectServed(api, last);
    expect(await allPages(api, 'limit=1')).toEqual([[below], [last]]);
    const retry = await create(api, lastPet, 'int64-last');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(last);
  });

  it('end there: no pet is created with an id JSON cannot carry exactly', async () => {
    const res = await create(api, { name: 'One too many', categoryId: 1, status: 'available' });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ code: 'internal_error' });
    const listed: Pet[] = await (await api.request('/v1/pets?limit=100')).json();
    expect(listed.map((pet) => pet.id)).toEqual([LARGEST_ID - 1, LARGEST_ID]);
    expect(await api.db.pet.count()).toBe(2);
  });
});
