import { createPrismaClient, type DatabaseClient } from '@animal-store/db';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../testing/test-database.js';
import { createPetStore, type PetStore } from './pet-store.js';

let database: TestDatabase;
let db: DatabaseClient;
let store: PetStore;

beforeAll(async () => {
  database = await freshDatabase(inject('templateDatabase'));
  db = createPrismaClient(database.url);
  store = createPetStore(db);
});

afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

const NUL = String.fromCharCode(0);

it('stores pets as sent and answers them in the order given, twins each with a pet of its own', async () => {
  const asked = [
    { name: 'Batch a', categoryId: 1, status: 'available' },
    { name: `Back\\slash and ${NUL}`, categoryId: 2, status: 'pending' },
    { name: 'Twin', categoryId: 3, status: 'sold' },
    { name: 'Twin', categoryId: 3, status: 'sold' },
    { name: 'Batch z', categoryId: 9007199254740991, status: 'available' },
  ] as const;
  const created = await store.insertPets(asked);
  expect(created.map(({ id: _, ...values }) => values)).toEqual(asked);
  const ids = created.map((pet) => pet.id);
  expect(new Set(ids).size).toBe(asked.length);
  expect(await store.findPets(ids)).toEqual(created);
});

it('finds pets in the order of the ids asked, with nothing where no pet has the id', async () => {
  const [rex, tom] = await store.insertPets([
    { name: 'Rex', categoryId: 1, status: 'available' },
    { name: 'Tom', categoryId: 2, status: 'sold' },
  ]);
  expect(await store.findPets([tom?.id ?? 0, 999_999, rex?.id ?? 0, 9007199254740991])).toEqual([
    tom,
    undefined,
    rex,
    undefined,
  ]);
});

it('lists a page after a position, of one status or all, and says whether more follow', async () => {
  const [cat, dog] = await store.insertPets([
    { name: 'Page cat', categoryId: 3, status: 'available' },
    { name: 'Page dog', categoryId: 4, status: 'sold' },
  ]);
  const before = (cat?.id ?? 0) - 1;
  expect(await store.listPage({ afterId: before, limit: 1 })).toEqual({
    pets: [cat],
    hasMore: true,
  });
  expect(await store.listPage({ afterId: before, limit: 5, status: 'sold' })).toEqual({
    pets: [dog],
    hasMore: false,
  });
});

it('keeps an idempotency record with its pet, finds it by its key, and refuses the key a second time', async () => {
  const claim = { scope: 'key_a', key: 'k-1', requestHash: 'hash-1' };
  const [pet] = await store.insertPets([{ name: 'Kept', categoryId: 1, status: 'available' }]);
  await store.insertIdempotencyRecord(claim, pet?.id ?? 0);
  const [found, missing] = await store.findIdempotencyRecords([
    claim,
    { ...claim, key: 'never-used' },
  ]);
  expect(found).toMatchObject({ requestHash: 'hash-1', petId: pet?.id });
  expect(missing).toBeUndefined();
  await expect(store.insertIdempotencyRecord(claim, pet?.id ?? 0)).rejects.toMatchObject({
    code: 'P2002',
  });
});

it('runs a transaction on its own queries, and keeps nothing of one that fails', async () => {
  const failure = new Error('changed its mind');
  await expect(
    store.transaction(async (queries) => {
      await queries.insertPets([{ name: 'Rolled back', categoryId: 1, status: 'available' }]);
      throw failure;
    }),
  ).rejects.toBe(failure);
  const all = await store.listPage({ limit: 100 });
  expect(all.pets.map(({ name }) => name)).not.toContain('Rolled back');
});
