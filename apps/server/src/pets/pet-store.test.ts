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
