import { randomUUID } from 'node:crypto';
import type { Pet } from '@animal-store/contract';
import { createPrismaClient, type DatabaseClient, providerOf } from '@animal-store/db';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../testing/test-database.js';
import { createPetStore, type IdempotencyClaim, type PetStore } from './pet-store.js';

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

/**
 * Names the JSON a database writes could spoil: a backslash, a NUL (stored escaped) beside the
 * escape it is stored as, quotes, astral and line-separator characters, and no name at all.
 */
const TRAP_NAMES = [`Back\\slash, ${NUL}, \\0 and "quotes"`, 'Ünïcødé 🐈 \u2028 \u{10FFFF}', ''];

/**
 * Stores a `sold` pet of each of `TRAP_NAMES` (the first in the largest category), then runs
 * `check` with a store whose client records the statements it sends from then on. The JSON reads
 * must not go through the client's raw queries: they are sent to its driver adapter
 * (docs/decisions/012-text-reads-skip-the-prisma-client.md).
 */
async function withTrapPetsObserved(
  check: (observedStore: PetStore, stored: Pet[], statements: string[]) => Promise<void>,
) {
  const statements: string[] = [];
  const observed = createPrismaClient(database.url, { onQuery: ({ sql }) => statements.push(sql) });
  try {
    const observedStore = createPetStore(observed);
    const stored = await observedStore.insertPets(
      TRAP_NAMES.map((name, i) => ({
        name,
        categoryId: i === 0 ? 9007199254740991 : i,
        status: 'sold',
      })),
    );
    expect(stored.map(({ name }) => name)).toEqual(TRAP_NAMES);
    statements.length = 0;
    const rawQueries = [vi.spyOn(observed, '$queryRaw'), vi.spyOn(observed, '$queryRawUnsafe')];
    await check(observedStore, stored, statements);
    for (const rawQuery of rawQueries) expect(rawQuery).not.toHaveBeenCalled();
  } finally {
    await observed.$disconnect();
  }
}

it('finds pets as they were stored, whatever their names hold, in one statement whose text is the same for any number of ids', async () => {
  await withTrapPetsObserved(async (observedStore, stored, statements) => {
    const ids = stored.map(({ id }) => id);
    expect(await observedStore.findPets([...ids].reverse())).toEqual([...stored].reverse());
    expect(await observedStore.findPets([ids[1] ?? 0])).toEqual([stored[1]]);
    expect(await observedStore.findPets([9007199254740991, ids[0] ?? 0])).toEqual([
      undefined,
      stored[0],
    ]);
    expect(statements).toHaveLength(3);
    expect(new Set(statements).size).toBe(1);
    expect(statements[0]).toMatch(/json_agg|json_group_array/);
  });
});

it('answers a page of pets as they were stored, whatever their names hold, in one statement that builds its JSON', async () => {
  await withTrapPetsObserved(async (observedStore, stored, statements) => {
    const ids = stored.map(({ id }) => id);
    const before = Math.min(...ids) - 1;
    const [all, exactly, nothingAfter] = [
      await observedStore.listPage({ afterId: before, limit: 3, status: 'sold' }),
      await observedStore.listPage({ afterId: before, limit: 2, status: 'sold' }),
      await observedStore.listPage({ afterId: Math.max(...ids), limit: 5, status: 'sold' }),
    ];
    expect(all).toEqual({ pets: stored, hasMore: false });
    expect(exactly).toEqual({ pets: stored.slice(0, 2), hasMore: true });
    expect(nothingAfter).toEqual({ pets: [], hasMore: false });
    expect(statements).toHaveLength(3);
    for (const sql of statements) expect(sql).toMatch(/json_agg|json_group_array/);
  });
});

describe('insertPetsUnderKeys', () => {
  const DAY_MS = 24 * 60 * 60_000;
  const pet = (name: string) => ({ name, categoryId: 4, status: 'pending' }) as const;
  const remembered = () => new Date(Date.now() - DAY_MS);
  /** One request's claim, as the idempotent create makes it. */
  const claimOne = async (
    unsaved: ReturnType<typeof pet>,
    claim: IdempotencyClaim,
    forgottenBefore: Date,
    claimingStore: PetStore = store,
  ) => {
    const [stored] = await claimingStore.insertPetsUnderKeys([
      { pet: unsaved, claim, forgottenBefore },
    ]);
    return stored;
  };

  it('stores the pet under a new key, and nothing under a key still remembered', async () => {
    const claim = { scope: 'key_b', key: `k-${randomUUID()}`, requestHash: 'first' };
    const stored = await claimOne(pet('Claimed'), claim, remembered());
    expect(stored).toMatchObject(pet('Claimed'));
    const [record, neverUsed] = await store.findIdempotencyRecords([
      claim,
      { ...claim, key: `never-used-${randomUUID()}` },
    ]);
    expect(record).toMatchObject({ requestHash: 'first', petId: stored?.id });
    expect(neverUsed).toBeUndefined();

    const again = await claimOne(
      pet('Not stored'),
      { ...claim, requestHash: 'second' },
      remembered(),
    );
    expect(again).toBeUndefined();
    const all = await store.listPage({ limit: 100, status: 'pending' });
    expect(all.pets.map(({ name }) => name)).not.toContain('Not stored');
    expect(await store.findIdempotencyRecords([claim])).toEqual([record]);
  });

  it('takes over a key whose record has expired: a new pet, and the record points to it', async () => {
    const claim = { scope: 'key_b', key: `k-${randomUUID()}`, requestHash: 'old' };
    const first = await claimOne(pet('Before'), claim, remembered());
    // Every record made until a second from now counts as expired.
    const later = new Date(Date.now() + 1_000);
    const second = await claimOne(pet('After'), { ...claim, requestHash: 'new' }, later);
    expect(second).toMatchObject(pet('After'));
    expect(second?.id).toBeGreaterThan(first?.id ?? Number.POSITIVE_INFINITY);
    const [record] = await store.findIdempotencyRecords([claim]);
    expect(record).toMatchObject({ requestHash: 'new', petId: second?.id });
  });

  it('forgets the expired records of other keys', async () => {
    const expiring = { scope: 'key_c', key: `k-${randomUUID()}`, requestHash: 'old' };
    await claimOne(pet('Expiring'), expiring, remembered());
    // A store just made purges at its first claim, as a server does after it starts.
    const later = new Date(Date.now() + 1_000);
    const other = { scope: 'key_c', key: `k-${randomUUID()}`, requestHash: 'other' };
    await claimOne(pet('Other'), other, later, createPetStore(db));
    expect(await store.findIdempotencyRecords([expiring, other])).toEqual([
      undefined,
      expect.objectContaining({ requestHash: 'other' }),
    ]);
  });

  it('of concurrent claims of one key, stores exactly one pet', async () => {
    const claim = { scope: 'key_b', key: `k-${randomUUID()}`, requestHash: 'race' };
    const names = Array.from({ length: 8 }, (_, i) => `Racer ${claim.key} ${i}`);
    const stored = await Promise.all(names.map((name) => claimOne(pet(name), claim, remembered())));
    expect(stored.filter(Boolean)).toHaveLength(1);
    const all = await store.listPage({ limit: 100, status: 'pending' });
    expect(all.pets.filter(({ name }) => names.includes(name))).toHaveLength(1);
  });

  it('claims many keys in one call, a key asked twice by its first request only', async () => {
    const statements: string[] = [];
    const observed = createPrismaClient(database.url, {
      onQuery: ({ sql }) => statements.push(sql),
    });
    try {
      const observedStore = createPetStore(observed);
      const claim = (key: string, requestHash: string) => ({ scope: 'key_d', key, requestHash });
      const [first, second] = [`k-${randomUUID()}`, `k-${randomUUID()}`];
      const stored = await observedStore.insertPetsUnderKeys([
        { pet: pet('Many 1'), claim: claim(second, 'one'), forgottenBefore: remembered() },
        { pet: pet('Many 2'), claim: claim(first, 'two'), forgottenBefore: remembered() },
        { pet: pet('Many 3'), claim: claim(second, 'three'), forgottenBefore: remembered() },
      ]);

      expect(stored).toEqual([
        expect.objectContaining(pet('Many 1')),
        expect.objectContaining(pet('Many 2')),
        undefined,
      ]);
      expect(await store.findPets(stored.map((one) => one?.id ?? 0))).toEqual(stored);
      expect(await store.findIdempotencyRecords([claim(second, ''), claim(first, '')])).toEqual([
        expect.objectContaining({ requestHash: 'one', petId: stored[0]?.id }),
        expect.objectContaining({ requestHash: 'two', petId: stored[1]?.id }),
      ]);
      const inserts = statements.filter((sql) => /INSERT/i.test(sql));
      // PostgreSQL claims every key in one statement; SQLite, a transaction per request, each
      // inserting the pet and its record (or nothing, for the key taken).
      expect(inserts).toHaveLength(providerOf(observed) === 'postgresql' ? 1 : 6);
    } finally {
      await observed.$disconnect();
    }
  });
});
