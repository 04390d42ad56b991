import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createPrismaClient, type DatabaseClient } from '@animal-store/db';
import type { Response } from 'express';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../testing/test-database.js';
import { createPetStore, type PetStore, type UnsavedPet } from '../pets/pet-store.js';
import { NO_TRACE, TRACING_OFF } from '../tracing/tracing.js';
import { BATCHING_CHANNELS, type DispatchedMessage } from './diagnostics.js';
import { batchedPetStore } from './pet-store.js';

let database: TestDatabase;
let db: DatabaseClient;
let storeFor: (res: Response) => PetStore;
let statements = 0;

beforeAll(async () => {
  database = await freshDatabase(inject('templateDatabase'));
  db = createPrismaClient(database.url, {
    onQuery: () => {
      statements += 1;
    },
  });
  storeFor = batchedPetStore(createPetStore(db), TRACING_OFF);
});

afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

/** The store as one request admitted in `turn` calls it: what the pipeline hands a handler. */
const requestOf = (turn = 1) =>
  storeFor({ locals: { context: { trace: NO_TRACE, turn } } } as unknown as Response);

const pet = (name: string, categoryId = 1): UnsavedPet => ({
  name,
  categoryId,
  status: 'available',
});

describe('the batched pet store', () => {
  it('reads the pets requests look up in one turn with one statement, each getting its own', async () => {
    const [rex, tom] = await requestOf().insertPets([pet('Rex'), pet('Tom', 2)]);
    statements = 0;
    const found = await Promise.all(
      [rex?.id, 999_999, tom?.id, rex?.id].map((id) => requestOf().findPets([id ?? 0])),
    );
    expect(found).toEqual([[rex], [undefined], [tom], [rex]]);
    expect(statements).toBe(1);
  });

  it('keeps nothing between turns: a look-up after a change reads the change', async () => {
    const [before] = await requestOf().insertPets([pet('Before')]);
    const id = before?.id ?? 0;
    await db.pet.update({ where: { id }, data: { name: 'After' } });
    expect(await requestOf().findPets([id])).toEqual([{ ...before, name: 'After' }]);
    await db.pet.delete({ where: { id } });
    expect(await requestOf().findPets([id])).toEqual([undefined]);
  });

  it('reads a page asked for several times in one turn once, each different page with its own statement', async () => {
    const [cat] = await requestOf().insertPets([pet('Page cat')]);
    const after = (cat?.id ?? 0) - 1;
    statements = 0;
    const [first, again, other] = await Promise.all([
      requestOf().listPage({ afterId: after, limit: 1 }),
      requestOf().listPage({ afterId: after, limit: 1 }),
      requestOf().listPage({ afterId: after, limit: 2 }),
    ]);
    expect(statements).toBe(2);
    expect(first).toEqual({ pets: [cat], hasMore: false });
    expect(again).toEqual(first);
    expect(other).toEqual(first);
  });

  it('fails only the page whose read failed when pages are read together', async () => {
    const [good, bad] = await Promise.allSettled([
      requestOf().listPage({ limit: 1 }),
      // Not a count at all (past the type checker, as a bug would be): neither database takes
      // it as a statement's LIMIT.
      requestOf().listPage({ limit: 'many' as unknown as number }),
    ]);
    expect(good.status).toBe('fulfilled');
    expect(bad.status).toBe('rejected');
  });

  it('inserts the creates of one turn in statements of at most 1,000 pets, each create getting its own pet', async () => {
    const asked = Array.from({ length: 2_500 }, (_, i) => pet(`Crowd ${i}`, 1 + (i % 7)));
    statements = 0;
    const created = await Promise.all(asked.map((one) => requestOf().insertPets([one])));
    expect(statements).toBe(3);
    expect(created.map(([one]) => one && { ...one, id: undefined })).toEqual(
      asked.map((one) => ({ ...one, id: undefined })),
    );
    expect(new Set(created.map(([one]) => one?.id)).size).toBe(asked.length);
  });

  it("tells a diagnostics channel each shared call's size and the turns of the first calls in it", async () => {
    const dispatched: DispatchedMessage[] = [];
    const listen = (message: unknown) => dispatched.push(message as DispatchedMessage);
    subscribe(BATCHING_CHANNELS.dispatched, listen);
    try {
      const firstOfTurn7 = requestOf(7);
      const [existing] = await firstOfTurn7.insertPets([pet('Diag')]);
      await Promise.all([
        firstOfTurn7.findPets([existing?.id ?? 0]),
        requestOf(8).findPets([existing?.id ?? 0]),
        requestOf(8).findPets([1, 2]),
      ]);
    } finally {
      unsubscribe(BATCHING_CHANNELS.dispatched, listen);
    }
    expect(dispatched).toEqual([
      { store: 'pets', method: 'insertPets', turns: [7], full: false },
      { store: 'pets', method: 'findPets', turns: [8, 8], full: false },
    ]);
  });
});
