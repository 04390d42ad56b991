/**
 * Our SQLite adapter against Prisma's own: the queries the server makes, run through a Prisma
 * client on our adapter and through one on `@prisma/adapter-libsql`, each on a fresh database
 * file, must read the same rows and fail with the same kinds of error, except where a step says
 * why they part. Both implement Prisma's driver-adapter contract, which moves between Prisma
 * releases: when an upgrade changes what Prisma sends or expects, Prisma's adapter changes with
 * it and this test fails until ours does.
 *
 * @module-tag node-runtime: libsql's native addon, loaded by Node
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma, PrismaClient } from '../../generated/sqlite/client.js';
import { createPrismaClient, type DatabaseClient } from '../client.js';
import { migrateDatabase } from '../migrate.js';

const SAFE_MAX = 2n ** 53n - 1n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const CREATED_AT = new Date('2026-11-25T20:00:00.123Z');
const LONG_AGO = new Date('2020-01-01T00:00:00Z');

/** A pet's wire columns, as apps/server/src/pets/pet-store.ts types them. */
const PET_COLUMNS = { id: true, name: true, categoryId: true, status: true } as const;

/**
 * What a failed query tells its caller, and the kind of driver-adapter error under it. Not the
 * driver's own message: `@libsql/client` prefixes SQLite's with the code's name.
 */
function summaryOf(error: unknown) {
  const { name, code, meta } = error as {
    name?: string;
    code?: string;
    meta?: { driverAdapterError?: { cause?: { kind?: string } } } & Record<string, unknown>;
  };
  const { driverAdapterError, ...rest } = meta ?? {};
  return { name, code, meta: rest, kind: driverAdapterError?.cause?.kind };
}

type Outcome = { value: unknown } | { error: ReturnType<typeof summaryOf> };

async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error: summaryOf(error) };
  }
}

/** The server's `INSERT … RETURNING` of several pets (pet-store.ts, insertPets). */
function insertPets(db: DatabaseClient, pets: Array<{ name: string; categoryId: bigint }>) {
  const values = pets.map(
    ({ name, categoryId }) => Prisma.sql`(${name}, ${categoryId}, ${'available'}, ${CREATED_AT})`,
  );
  return db.$queryRaw`
    INSERT INTO "pets" ("name", "category_id", "status", "created_at")
    VALUES ${Prisma.join(values)}
    RETURNING "id", "name", "category_id" AS "categoryId", "status"`;
}

const createPet = (db: Pick<DatabaseClient, 'pet'>, name: string, status = 'sold') =>
  db.pet.create({
    data: { name, categoryId: 7n, status, createdAt: CREATED_AT },
    select: PET_COLUMNS,
  });

const claim = { scope: 'createPet', key: 'key-1', requestHash: 'hash-1' };

/** An interactive transaction: the server's idempotent create on SQLite until it became a batch. */
const createPetOnce = (db: DatabaseClient, name: string) =>
  db.$transaction(async (tx) => {
    await tx.idempotencyRecord.deleteMany({ where: { createdAt: { lt: LONG_AGO } } });
    const pet = await tx.pet.create({
      data: { name, categoryId: 3n, status: 'available', createdAt: CREATED_AT },
      select: PET_COLUMNS,
    });
    await tx.idempotencyRecord.create({
      data: { ...claim, petId: pet.id, createdAt: CREATED_AT },
    });
    return pet;
  });

/**
 * The server's idempotent create on SQLite (pet-store.ts, insertUnderKeyInTransaction): a batch
 * transaction of raw statements, the record inserted for the pet by `last_insert_rowid()` where
 * `changes()` says the pet was. A key already recorded inserts neither.
 */
const insertPetUnderKey = (db: DatabaseClient, name: string) =>
  db.$transaction([
    db.$executeRaw`DELETE FROM "idempotency_records" WHERE "created_at" < ${LONG_AGO}`,
    db.$queryRaw`
      INSERT INTO "pets" ("name", "category_id", "status", "created_at")
      SELECT ${name}, ${3n}, 'available', ${CREATED_AT}
      WHERE NOT EXISTS (
        SELECT 1 FROM "idempotency_records" WHERE "scope" = 'batch' AND "key" = 'key-1')
      RETURNING "id", "name"`,
    db.$executeRaw`
      INSERT INTO "idempotency_records" ("scope", "key", "request_hash", "pet_id", "created_at")
      SELECT 'batch', 'key-1', 'hash-1', last_insert_rowid(), ${CREATED_AT} WHERE changes() = 1`,
  ]);

const upsertSecret = (db: DatabaseClient, value: string) =>
  db.serverSecret.upsert({
    where: { name: 'page-cursor-key' },
    create: { name: 'page-cursor-key', value },
    update: {},
    select: { value: true },
  });

const createKey = (db: DatabaseClient, id: string, perMinute: bigint, perDay: bigint) =>
  db.apiKey.create({
    data: {
      id,
      label: `key ${id} 🔑`,
      plan: 'enterprise',
      perMinute,
      perDay,
      secretHash: `hash-of-${id}`,
      createdAt: CREATED_AT,
    },
  });

interface Step {
  name: string;
  run: (db: DatabaseClient) => Promise<unknown>;
  /** Where the two part on purpose: why, and what each answers. */
  differs?: { because: string; ours: Outcome; prismas: Outcome };
}

/** Each step runs after the ones before it, on the database they left. */
const STEPS: readonly Step[] = [
  {
    name: 'INSERT … RETURNING several pets: Unicode and astral names, 64-bit categories',
    run: (db) =>
      insertPets(db, [
        { name: 'Rex', categoryId: 1n },
        { name: '🐕 Rex 𝒳 🐈‍⬛', categoryId: SAFE_MAX },
        { name: 'Ünïcödé 中文 עברית', categoryId: 2n },
        { name: 'escaped \\0 as the server stores a NUL', categoryId: 3n },
      ]),
  },
  { name: 'a name holding a NUL, as sent', run: (db) => createPet(db, 'before\0after') },
  { name: 'create with select', run: (db) => createPet(db, 'Tom') },
  {
    name: "findMany with `in` (the lookup of gets by id until it became the database's JSON)",
    run: (db) => db.pet.findMany({ where: { id: { in: [1, 3, 5, 999] } }, select: PET_COLUMNS }),
  },
  {
    name: 'findMany with `gt`, orderBy and take (a page)',
    run: (db) =>
      db.pet.findMany({
        where: { status: 'available', id: { gt: 1 } },
        orderBy: { id: 'asc' },
        take: 3,
        select: PET_COLUMNS,
      }),
  },
  { name: 'findMany of every column', run: (db) => db.pet.findMany({ orderBy: { id: 'asc' } }) },
  {
    name: 'creates of one turn, committed together',
    run: (db) => Promise.all(['a', 'b', 'c'].map((name) => createPet(db, `together ${name}`))),
  },
  { name: '$transaction with deleteMany and creates', run: (db) => createPetOnce(db, 'Once') },
  {
    name: 'findUnique on a compound key',
    run: (db) =>
      db.idempotencyRecord.findUnique({
        where: { scope_key: { scope: claim.scope, key: claim.key } },
        select: { requestHash: true, petId: true, createdAt: true },
      }),
  },
  { name: 'a unique violation in a transaction', run: (db) => createPetOnce(db, 'Twice') },
  { name: 'a batch transaction claiming a new key', run: (db) => insertPetUnderKey(db, 'Claim') },
  { name: 'the same batch for a key taken', run: (db) => insertPetUnderKey(db, 'Not stored') },
  {
    name: "a page as the database's JSON",
    run: (db) => db.$queryRaw`
      SELECT json_group_array(json_object('id', "id", 'name', "name") ORDER BY "id") AS "pets"
      FROM (SELECT "id", "name" FROM "pets" ORDER BY "id" LIMIT 3) AS "page"`,
  },
  {
    name: "pets by ids bound as one JSON array, as the database's JSON",
    run: (db) => db.$queryRaw`
      SELECT json_group_array(json_object('id', "id", 'name', "name") ORDER BY "id") AS "pets"
      FROM (SELECT "id", "name" FROM "pets"
        WHERE "id" IN (SELECT "value" FROM json_each(${JSON.stringify([3, 1, 9007199254740991])}))) AS "pet"`,
  },
  {
    name: 'a unique violation alone',
    run: (db) => db.idempotencyRecord.create({ data: { ...claim, petId: 1n } }),
  },
  {
    name: 'a unique violation among writes of the same turn',
    run: (db) =>
      Promise.allSettled([
        createPet(db, 'before the violation'),
        db.idempotencyRecord.create({ data: { ...claim, petId: 1n } }),
        createPet(db, 'after the violation'),
      ]).then((outcomes) => outcomes.map(({ status }) => status)),
  },
  {
    name: 'a transaction that throws, rolled back',
    run: (db) =>
      db
        .$transaction(async (tx) => {
          await createPet(tx, 'Ghost');
          throw new Error('changed my mind');
        })
        .catch(() => db.pet.count({ where: { name: 'Ghost' } })),
  },
  { name: 'upsert creating', run: (db) => upsertSecret(db, 'first') },
  { name: 'upsert finding', run: (db) => upsertSecret(db, 'second') },
  {
    name: 'API keys with 64-bit limits up to 2^53 − 1',
    run: (db) =>
      Promise.all([
        createKey(db, 'key_max', SAFE_MAX, SAFE_MAX),
        createKey(db, 'key_neg', -1n, 0n),
      ]),
  },
  {
    name: 'findMany ordered by a date',
    run: (db) => db.apiKey.findMany({ orderBy: { createdAt: 'asc' } }),
  },
  {
    name: 'findUnique on a unique column',
    run: (db) => db.apiKey.findUnique({ where: { secretHash: 'hash-of-key_max' } }),
  },
  {
    name: 'update setting a date',
    run: (db) =>
      db.apiKey.update({
        where: { id: 'key_neg' },
        data: { revokedAt: CREATED_AT },
        select: { id: true, revokedAt: true },
      }),
  },
  {
    name: 'the readiness probe’s $queryRaw',
    run: (db) => db.$queryRaw`SELECT
      (SELECT 1 FROM pets LIMIT 1) AS pets,
      (SELECT 1 FROM api_keys LIMIT 1) AS api_keys,
      (SELECT 1 FROM idempotency_records LIMIT 1) AS idempotency_records,
      (SELECT 1 FROM server_secrets LIMIT 1) AS server_secrets`,
  },
  {
    name: '$queryRaw of expressions: a count, a text, a real, a NULL',
    run: (db) => db.$queryRaw`SELECT count(*) AS pets, min(name) AS first, 0.5 AS half,
      NULL AS none FROM pets`,
  },
  {
    name: 'a NULL in a NOT NULL column',
    run: (db) => db.$executeRaw`INSERT INTO pets (name, category_id, status) VALUES (NULL, 1, 'x')`,
  },
  {
    name: 'a table that is not there',
    run: (db) => db.$queryRawUnsafe('SELECT * FROM no_such_table'),
    differs: {
      because:
        'Prisma’s adapter looks for "no such table" at the start of the message, which @libsql/client prefixes with "SQLITE_ERROR: "; ours sees SQLite’s own message, and the server answers a table gone with 503',
      ours: {
        error: {
          name: 'PrismaClientKnownRequestError',
          code: 'P2010',
          meta: {},
          kind: 'TableDoesNotExist',
        },
      },
      prismas: {
        error: { name: 'PrismaClientKnownRequestError', code: 'P2010', meta: {}, kind: 'sqlite' },
      },
    },
  },
  {
    name: 'a column that is not there',
    run: (db) => db.$queryRawUnsafe('SELECT colour FROM pets'),
  },
  {
    name: 'pet ids past 2^53 − 1, refused by the trigger',
    run: async (db) => {
      await db.$executeRaw`UPDATE sqlite_sequence SET seq = ${SAFE_MAX} WHERE name = 'pets'`;
      return createPet(db, 'One too many');
    },
  },
  { name: 'deleteMany', run: (db) => db.pet.deleteMany({ where: { status: 'sold' } }) },
  { name: 'count', run: (db) => db.pet.count() },
  {
    name: 'API key limits at both ends of 64 bits',
    run: async (db) => {
      await createKey(db, 'key_edges', INT64_MAX, INT64_MIN);
      return db.apiKey.findUnique({
        where: { id: 'key_edges' },
        select: { perMinute: true, perDay: true },
      });
    },
    differs: {
      because:
        'Prisma’s adapter runs @libsql/client in its default integer mode, numbers, which cannot hold integers past 2^53 − 1; ours reads every integer exactly',
      ours: { value: { perMinute: INT64_MAX, perDay: INT64_MIN } },
      prismas: { error: { name: 'RangeError', code: undefined, meta: {}, kind: undefined } },
    },
  },
];

async function outcomesOf(db: DatabaseClient): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  for (const { name, run } of STEPS) outcomes.set(name, await outcomeOf(() => run(db)));
  return outcomes;
}

let folder: string;
let ours: Map<string, Outcome>;
let prismas: Map<string, Outcome>;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'adapter-conformance-'));
  const ourUrl = `file:${join(folder, 'ours.db')}`;
  const prismasUrl = `file:${join(folder, 'prismas.db')}`;
  await Promise.all([migrateDatabase(ourUrl), migrateDatabase(prismasUrl)]);

  const ourClient = createPrismaClient(ourUrl);
  const prismasClient = new PrismaClient({ adapter: new PrismaLibSql({ url: prismasUrl }) });
  try {
    ours = await outcomesOf(ourClient);
    prismas = await outcomesOf(prismasClient);
  } finally {
    await Promise.all([ourClient.$disconnect(), prismasClient.$disconnect()]);
  }
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('our SQLite adapter and @prisma/adapter-libsql, through Prisma', () => {
  it.each(STEPS)('$name: the same rows, or the same error', ({ name, differs }) => {
    if (differs) {
      expect(ours.get(name)).toMatchObject(differs.ours);
      expect(prismas.get(name)).toMatchObject(differs.prismas);
    } else {
      expect(ours.get(name)).toEqual(prismas.get(name));
    }
  });

  it('read what was written and failed as they should: the two do not merely agree on being wrong', () => {
    expect(ours.get(STEPS[0]?.name ?? '')).toEqual({
      value: [
        { id: 1, name: 'Rex', categoryId: 1n, status: 'available' },
        { id: 2, name: '🐕 Rex 𝒳 🐈‍⬛', categoryId: SAFE_MAX, status: 'available' },
        { id: 3, name: 'Ünïcödé 中文 עברית', categoryId: 2n, status: 'available' },
        {
          id: 4,
          name: 'escaped \\0 as the server stores a NUL',
          categoryId: 3n,
          status: 'available',
        },
      ],
    });
    // libsql ends text at a NUL, which is why the server stores it escaped.
    expect(ours.get('a name holding a NUL, as sent')).toMatchObject({ value: { name: 'before' } });
    expect(ours.get('findUnique on a compound key')).toEqual({
      value: { requestHash: 'hash-1', petId: 10n, createdAt: CREATED_AT },
    });
    const uniqueViolation = { code: 'P2002', kind: 'UniqueConstraintViolation' };
    expect(ours.get('a unique violation alone')).toMatchObject({ error: uniqueViolation });
    expect(ours.get('a unique violation in a transaction')).toMatchObject({
      error: uniqueViolation,
    });
    expect(ours.get('a unique violation among writes of the same turn')).toEqual({
      value: ['fulfilled', 'rejected', 'fulfilled'],
    });
    expect(ours.get('a transaction that throws, rolled back')).toEqual({ value: 0 });
    expect(ours.get('upsert finding')).toEqual({ value: { value: 'first' } });
    expect(ours.get('a NULL in a NOT NULL column')).toMatchObject({
      error: { code: 'P2010', kind: 'NullConstraintViolation' },
    });
    expect(ours.get('pet ids past 2^53 − 1, refused by the trigger')).toMatchObject({
      error: { code: 'P2003', kind: 'ForeignKeyConstraintViolation' },
    });
  });
});
