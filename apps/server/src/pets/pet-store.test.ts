import { createPrismaClient, type DatabaseClient } from '@animal-store/db';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { createPetStore, type PetStore } from './pet-store.js';

let database: TestDatabase;
let db: DatabaseClient;
let store: PetStore;
let statements = 0;

beforeAll(async () => {
  database = await freshDatabase(inject('templateDatabase'));
  db = createPrismaClient(database.url, {
    onQuery: () => {
      statements += 1;
    },
  });
  store = createPetStore(db);
});

afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

it('reads the pets looked up in one turn with one statement, each lookup getting its own', async () => {
  const rex = await store.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
  const tom = await store.createPet({ name: 'Tom', categoryId: 2, status: 'sold' });
  statements = 0;
  const found = await Promise.all(
    [rex.id, 999_999, tom.id, rex.id, 9007199254740991].map((id) => store.findPet(id)),
  );
  expect(found).toEqual([rex, undefined, tom, rex, undefined]);
  expect(statements).toBe(1);
});

it('keeps nothing between turns: a lookup after a change reads the change', async () => {
  const pet = await store.createPet({ name: 'Before', categoryId: 1, status: 'pending' });
  expect(await store.findPet(pet.id)).toEqual(pet);
  await db.pet.update({ where: { id: pet.id }, data: { name: 'After', status: 'sold' } });
  expect(await store.findPet(pet.id)).toEqual({ ...pet, name: 'After', status: 'sold' });
  await db.pet.delete({ where: { id: pet.id } });
  expect(await store.findPet(pet.id)).toBeUndefined();
});

it('reads a page asked for several times in one turn with one statement, and each different page with its own', async () => {
  const cat = await store.createPet({ name: 'Page cat', categoryId: 3, status: 'available' });
  const dog = await store.createPet({ name: 'Page dog', categoryId: 4, status: 'sold' });
  const before = cat.id - 1;
  statements = 0;
  const [first, again, sold, afterCat, thirdTime] = await Promise.all([
    store.listPets({ afterId: before, limit: 1 }),
    store.listPets({ afterId: before, limit: 1 }),
    store.listPets({ afterId: before, limit: 5, status: 'sold' }),
    store.listPets({ afterId: cat.id, limit: 5 }),
    store.listPets({ afterId: before, limit: 1 }),
  ]);
  expect(statements).toBe(3);
  expect(first).toEqual({ pets: [cat], hasMore: true });
  expect(again).toEqual(first);
  expect(thirdTime).toEqual(first);
  expect(sold).toEqual({ pets: [dog], hasMore: false });
  expect(afterCat).toEqual({ pets: [dog], hasMore: false });
});

it('keeps no page between turns: a page asked for after a change reads the change', async () => {
  const first = await store.createPet({ name: 'First', categoryId: 1, status: 'pending' });
  const query = { afterId: first.id - 1, limit: 10 };
  expect(await store.listPets(query)).toEqual({ pets: [first], hasMore: false });
  const second = await store.createPet({ name: 'Second', categoryId: 1, status: 'pending' });
  expect(await store.listPets(query)).toEqual({ pets: [first, second], hasMore: false });
  await db.pet.delete({ where: { id: first.id } });
  expect(await store.listPets(query)).toEqual({ pets: [second], hasMore: false });
});

it('fails only the page whose read failed when pages are read together', async () => {
  const [good, bad] = await Promise.allSettled([
    store.listPets({ limit: 1 }),
    // Not an id at all: Prisma refuses to build the statement.
    store.listPets({ afterId: Number.NaN, limit: 1 }),
  ]);
  expect(good.status).toBe('fulfilled');
  expect(bad.status).toBe('rejected');
});

it('inserts the pets created in one turn with one statement, each create getting its own pet', async () => {
  const NUL = String.fromCharCode(0);
  const asked = [
    { name: 'Batch a', categoryId: 1, status: 'available' },
    { name: `Back\\slash and ${NUL}`, categoryId: 2, status: 'pending' },
    { name: 'Twin', categoryId: 3, status: 'sold' },
    { name: 'Twin', categoryId: 3, status: 'sold' },
    { name: 'Batch z', categoryId: 9007199254740991, status: 'available' },
  ] as const;
  statements = 0;
  const created = await Promise.all(asked.map((pet) => store.createPet(pet)));
  expect(statements).toBe(1);
  expect(created.map(({ id: _, ...values }) => values)).toEqual(asked);
  const ids = created.map((pet) => pet.id);
  // No two requests share a pet, the twins included.
  expect(new Set(ids).size).toBe(asked.length);
  expect(await Promise.all(ids.map((id) => store.findPet(id)))).toEqual(created);
});

it('inserts more than 1,000 pets of one turn in statements of at most 1,000, each create getting its own pet', async () => {
  const asked = Array.from({ length: 2_500 }, (_, i) => ({
    name: `Crowd ${i}`,
    categoryId: 1 + (i % 7),
    status: 'available' as const,
  }));
  statements = 0;
  const created = await Promise.all(asked.map((pet) => store.createPet(pet)));
  // At most 1,000 pets a statement.
  expect(statements).toBe(3);
  expect(created.map(({ id: _, ...values }) => values)).toEqual(asked);
  expect(new Set(created.map((pet) => pet.id)).size).toBe(asked.length);
});
