import type { Pet, PetStatus } from '@animal-store/contract';
import {
  type DatabaseClient,
  Prisma,
  providerOf,
  type TextRead,
  textReaderOf,
} from '@animal-store/db';
import { fromStoredName, toStoredName } from './stored-names.js';

/** The wire shape as the schema types it: the rows the inserts' `RETURNING` reads (`PetRow`). */
const PET_COLUMNS = {
  id: true,
  name: true,
  categoryId: true,
  status: true,
} as const satisfies Prisma.PetSelect;

type PetRow = Prisma.PetGetPayload<{ select: typeof PET_COLUMNS }>;

/** A pet to store: everything but the id the database gives it. */
export type UnsavedPet = Omit<Pet, 'id'>;

/**
 * A Pet id as the wire carries it. The client type says number, as the SQLite client reads it,
 * but the PostgreSQL client reads a bigint (Pet.id is the one field the two schemas type apart,
 * see @animal-store/db), and JSON.stringify throws on a bigint. Exact: the databases create no
 * id above 2^53 − 1.
 */
function petIdOf(id: number | bigint): number {
  return Number(id);
}

function toPet(row: PetRow): Pet {
  return {
    id: petIdOf(row.id),
    name: fromStoredName(row.name),
    categoryId: Number(row.categoryId),
    status: row.status as PetStatus,
  };
}

/** Which page of the list to read: `limit` pets after `afterId`, of one status or all. */
export interface PageQuery {
  status?: PetStatus | undefined;
  afterId?: number | undefined;
  limit: number;
}

/** A page of pets in ascending id order, and whether more follow it. */
export interface Page {
  pets: Pet[];
  hasMore: boolean;
}

/** An `Idempotency-Key` as one caller sent it, with the hash of the body it came with. */
export interface IdempotencyClaim {
  /** Whose keys it is among: the caller's API key. */
  scope: string;
  key: string;
  requestHash: string;
}

/** What an earlier create with the same key left: the hash of its body and the pet it made. */
export interface IdempotencyRecord {
  requestHash: string;
  petId: number;
  createdAt: Date;
}

const RECORD_COLUMNS = {
  requestHash: true,
  petId: true,
  createdAt: true,
} as const satisfies Prisma.IdempotencyRecordSelect;

/**
 * The most ids `findPets` takes. They are bound as one value, so no bind limit sets it: it bounds
 * what one statement reads and writes as JSON, the number kept from SQLite's old bind limit.
 */
export const MOST_IDS_PER_LOOKUP = 999;

/** The most pets `insertPets` takes: 4,000 bound values, well under SQLite's 32,766. */
export const MOST_PETS_PER_INSERT = 1_000;

/** What a pet was created with, everything but its id, as one comparable value. */
const valuesOf = ({ name, categoryId, status }: UnsavedPet) =>
  JSON.stringify([name, categoryId, status]);

/**
 * `created` in the order of `pets`. An insert's rows come back in no promised order: each pet
 * takes a row holding exactly its values, and pets with equal values are interchangeable.
 */
function inOrderOf(pets: readonly UnsavedPet[], created: Pet[]): Pet[] {
  const byValues = new Map<string, Pet[]>();
  for (const pet of created) {
    const key = valuesOf(pet);
    const same = byValues.get(key);
    if (same) same.push(pet);
    else byValues.set(key, [pet]);
  }
  return pets.map((pet) => {
    const row = byValues.get(valuesOf(pet))?.shift();
    if (!row) throw new Error('An inserted pet was not returned.');
    return row;
  });
}

/** The queries of the pets operations that both databases write alike. */
function petQueries(db: DatabaseClient) {
  return {
    /**
     * Stores `pets` with one `INSERT … RETURNING`, and answers them as created, in their order.
     * Written as SQL: Prisma keeps no query plan for `createMany` (its shape changes with the
     * number of rows), so it would compile one on every call.
     */
    async insertPets(pets: readonly UnsavedPet[]): Promise<Pet[]> {
      const createdAt = new Date();
      const values = pets.map(
        ({ name, categoryId, status }) =>
          Prisma.sql`(${toStoredName(name)}, ${BigInt(categoryId)}, ${status}, ${createdAt})`,
      );
      const rows = await db.$queryRaw<PetRow[]>`
        INSERT INTO "pets" ("name", "category_id", "status", "created_at")
        VALUES ${Prisma.join(values)}
        RETURNING "id", "name", "category_id" AS "categoryId", "status"`;
      return inOrderOf(pets, rows.map(toPet));
    },

    /** The record each claim's key left, if any, in their order. */
    async findIdempotencyRecords(
      claims: readonly IdempotencyClaim[],
    ): Promise<Array<IdempotencyRecord | undefined>> {
      // Prisma reads the `findUnique` calls of one tick with one statement.
      const rows = await Promise.all(
        claims.map(({ scope, key }) =>
          db.idempotencyRecord.findUnique({
            where: { scope_key: { scope, key } },
            select: RECORD_COLUMNS,
          }),
        ),
      );
      return rows.map((row) => (row ? { ...row, petId: petIdOf(row.petId) } : undefined));
    },
  };
}

/**
 * A pet to store under its claim's key, unless a create with the key made at or after
 * `forgottenBefore` is remembered (a record made earlier is expired, and taken over).
 */
export interface PetUnderKey {
  pet: UnsavedPet;
  claim: IdempotencyClaim;
  forgottenBefore: Date;
}

/** What `insertPetsUnderKeys` does: the pet stored for each claim that took its key. */
type InsertUnderKeys = (requests: readonly PetUnderKey[]) => Promise<Array<Pet | undefined>>;

/** The most claims `insertPetsUnderKeys` takes. */
export const MOST_CLAIMS_PER_INSERT = 1_000;

/** The most expired records one purge deletes: a bounded statement, run again while more wait. */
const MOST_RECORDS_PER_PURGE = 1_000;

/** How often PostgreSQL's expired records are purged, by the idempotent create that comes. */
const PURGE_EVERY_MS = 60_000;

/**
 * PostgreSQL's purge of expired records, which the one statement leaves out (a purge inside it
 * would lock other keys' records while it claims its own): at most once a minute, as its own
 * statement before a create's, taking only records no other statement holds, at most
 * `MOST_RECORDS_PER_PURGE`; when that many went, the next create purges again.
 */
function expiredRecordPurge(db: DatabaseClient) {
  let nextAt = 0;
  return async (forgottenBefore: Date) => {
    const now = Date.now();
    if (now < nextAt) return;
    nextAt = now + PURGE_EVERY_MS;
    const purged = await db.$executeRaw`
      DELETE FROM "idempotency_records" WHERE ctid = ANY (ARRAY (
        SELECT ctid FROM "idempotency_records" WHERE "created_at" < ${forgottenBefore}
        LIMIT ${MOST_RECORDS_PER_PURGE} FOR UPDATE SKIP LOCKED))`;
    if (purged === MOST_RECORDS_PER_PURGE) nextAt = 0;
  };
}

const claimKey = ({ scope, key }: Pick<IdempotencyClaim, 'scope' | 'key'>) =>
  JSON.stringify([scope, key]);

/**
 * The first request of each key, in the order of their keys: a statement may claim a key once,
 * and statements that meet take their keys' locks in the same order.
 */
function firstOfEachKey(requests: readonly PetUnderKey[]): PetUnderKey[] {
  const byKey = new Map<string, PetUnderKey>();
  for (const request of requests) {
    const key = claimKey(request.claim);
    if (!byKey.has(key)) byKey.set(key, request);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, request]) => request);
}

type ClaimedPetRow = PetRow & { scope: string; key: string };

/**
 * PostgreSQL: one statement claims the keys and inserts the pets with the ids the claims took
 * from the pets' sequence. A claim takes a key no record holds, or whose record has expired; a
 * key still remembered in the statement's snapshot takes no id, and one a concurrent create
 * claimed first takes nothing from its record (`ON CONFLICT … WHERE` finds it live): either way
 * no pet is inserted for it. A key asked twice is claimed by its first request; the others find
 * its record. The earliest `forgottenBefore` of the requests holds for all of them (they were
 * asked within the same turn). The first create of a minute purges expired records first.
 */
function insertUnderKeysInOneStatement(db: DatabaseClient): InsertUnderKeys {
  const purgeExpired = expiredRecordPurge(db);
  return async (requests) => {
    if (requests.length === 0) return [];
    const claims = firstOfEachKey(requests);
    const forgottenBefore = new Date(
      Math.min(...claims.map(({ forgottenBefore }) => forgottenBefore.getTime())),
    );
    await purgeExpired(forgottenBefore);
    const createdAt = new Date();
    const column = <T>(value: (request: PetUnderKey) => T) => claims.map(value);
    const rows = await db.$queryRaw<ClaimedPetRow[]>`
      WITH input AS (
        SELECT * FROM unnest(
          ${column(({ claim }) => claim.scope)}::text[], ${column(({ claim }) => claim.key)}::text[],
          ${column(({ claim }) => claim.requestHash)}::text[],
          ${column(({ pet }) => toStoredName(pet.name))}::text[],
          ${column(({ pet }) => String(pet.categoryId))}::bigint[],
          ${column(({ pet }) => pet.status)}::text[])
          AS input ("scope", "key", "request_hash", "name", "category_id", "status")
      ),
      claim AS (
        INSERT INTO "idempotency_records" AS record
          ("scope", "key", "request_hash", "pet_id", "created_at")
        SELECT "scope", "key", "request_hash", nextval('pets_id_seq'), ${createdAt} FROM input
        WHERE NOT EXISTS (
          SELECT FROM "idempotency_records" AS live
          WHERE live."scope" = input."scope" AND live."key" = input."key"
            AND live."created_at" >= ${forgottenBefore})
        ON CONFLICT ("scope", "key") DO UPDATE
          SET "request_hash" = excluded."request_hash", "pet_id" = excluded."pet_id",
              "created_at" = excluded."created_at"
          WHERE record."created_at" < ${forgottenBefore}
        RETURNING "scope", "key", "pet_id"
      ),
      pet AS (
        INSERT INTO "pets" ("id", "name", "category_id", "status", "created_at")
        SELECT claim."pet_id", input."name", input."category_id", input."status", ${createdAt}
        FROM claim JOIN input USING ("scope", "key")
        RETURNING "id", "name", "category_id", "status"
      )
      SELECT claim."scope", claim."key", pet."id", pet."name", pet."category_id" AS "categoryId",
        pet."status"
      FROM pet JOIN claim ON claim."pet_id" = pet."id"`;
    const stored = new Map(rows.map((row) => [claimKey(row), toPet(row)]));
    const claimedBy = new Map(claims.map((request) => [claimKey(request.claim), request]));
    return requests.map((request) => {
      const key = claimKey(request.claim);
      return claimedBy.get(key) === request ? stored.get(key) : undefined;
    });
  };
}

/**
 * SQLite, which has no data-modifying `WITH`: one batch transaction of three statements, sent to
 * the database together. It forgets the expired records, inserts the pet unless the key still has
 * a record, and records the key for the pet just inserted, if one was (`changes()` and
 * `last_insert_rowid()` of the insert, on the same connection). Our adapter runs it as a savepoint
 * of its turn's group commit, one transaction at a time, under the group's `BEGIN IMMEDIATE`: the
 * database's write lock is held throughout, so no other create, in this process or another, can
 * claim the key between the look and the insert, and the turn's creates share one commit.
 */
async function insertUnderKeyInTransaction(
  db: DatabaseClient,
  { pet, claim: { scope, key, requestHash }, forgottenBefore }: PetUnderKey,
): Promise<Pet | undefined> {
  const createdAt = new Date();
  const [, inserted] = await db.$transaction([
    db.$executeRaw`DELETE FROM "idempotency_records" WHERE "created_at" < ${forgottenBefore}`,
    db.$queryRaw<PetRow[]>`
        INSERT INTO "pets" ("name", "category_id", "status", "created_at")
        SELECT ${toStoredName(pet.name)}, ${BigInt(pet.categoryId)}, ${pet.status}, ${createdAt}
        WHERE NOT EXISTS (
          SELECT 1 FROM "idempotency_records" WHERE "scope" = ${scope} AND "key" = ${key})
        RETURNING "id", "name", "category_id" AS "categoryId", "status"`,
    db.$executeRaw`
        INSERT INTO "idempotency_records" ("scope", "key", "request_hash", "pet_id", "created_at")
        SELECT ${scope}, ${key}, ${requestHash}, last_insert_rowid(), ${createdAt}
        WHERE changes() = 1`,
  ]);
  return inserted[0] && toPet(inserted[0]);
}

/** SQLite: each claim in its own transaction, all of them committing in their turn's group. */
function insertUnderKeysInTransactions(db: DatabaseClient): InsertUnderKeys {
  return (requests) =>
    Promise.all(requests.map((request) => insertUnderKeyInTransaction(db, request)));
}

/**
 * The pets a row query selects (`id`, `name`, `categoryId`, `status`), as one JSON array in id
 * order that the database writes: one statement and one row, whatever the number of pets, and
 * none of them mapped row by row by the driver and Prisma. It is read as the text it is
 * (`textReaderOf`), past the Prisma client's per-query work. Each dialect has its own JSON
 * functions; both write a bigint as a JSON number, so ids arrive as the numbers they are.
 */
type PetsAsJson = (rows: Prisma.Sql) => Promise<string>;

/** `json_agg` writes the row query's columns under their names, as `SELECT_PETS` names them. */
const petsInPostgresJson =
  (readText: TextRead): PetsAsJson =>
  (rows) =>
    readText(Prisma.sql`
      SELECT coalesce(json_agg("pet" ORDER BY "id"), '[]')::text AS "pets"
      FROM (${rows}) AS "pet"`);

/** `json_object` names each key itself: a column added to `SELECT_PETS` is added here too. */
const petsInSqliteJson =
  (readText: TextRead): PetsAsJson =>
  (rows) =>
    readText(Prisma.sql`
      SELECT json_group_array(json_object('id', "id", 'name', "name",
          'categoryId', "categoryId", 'status', "status") ORDER BY "id") AS "pets"
      FROM (${rows}) AS "pet"`);

/** The pets of a JSON array `PetsAsJson` wrote, each name read back from its stored form. */
function petsOfJson(json: string): Pet[] {
  const pets = JSON.parse(json) as Pet[];
  for (const pet of pets) pet.name = fromStoredName(pet.name);
  return pets;
}

/** Every pet's wire columns; each row query adds its own `WHERE`. */
const SELECT_PETS = Prisma.sql`SELECT "id", "name", "category_id" AS "categoryId", "status" FROM "pets"`;

/**
 * The rows of the pets with `ids`, in each dialect. The ids are bound as one value, so the
 * statement's text is the same for any number of them: prepared once.
 */
type RowsWithIds = (ids: readonly number[]) => Prisma.Sql;

const rowsWithIdsInPostgres: RowsWithIds = (ids) =>
  Prisma.sql`${SELECT_PETS} WHERE "id" = ANY (${ids.map(String)}::bigint[])`;

const rowsWithIdsInSqlite: RowsWithIds = (ids) =>
  Prisma.sql`${SELECT_PETS} WHERE "id" IN (SELECT "value" FROM json_each(${JSON.stringify(ids)}))`;

/** The page's rows and the one after it, if any. */
function pageRows({ status, afterId, limit }: PageQuery) {
  const ofStatus = status === undefined ? Prisma.empty : Prisma.sql`AND "status" = ${status}`;
  return Prisma.sql`
    ${SELECT_PETS} WHERE "id" > ${afterId ?? 0} ${ofStatus} ORDER BY "id" LIMIT ${limit + 1}`;
}

/** Every database call the pets operations make: one method per query. */
export function createPetStore(db: DatabaseClient) {
  const postgresql = providerOf(db) === 'postgresql';
  const petsAsJson = (postgresql ? petsInPostgresJson : petsInSqliteJson)(textReaderOf(db));
  const rowsWithIds = postgresql ? rowsWithIdsInPostgres : rowsWithIdsInSqlite;
  return {
    ...petQueries(db),
    /**
     * The pets with `ids`, in their order; undefined where no pet has the id. One statement, in
     * each database's SQL (docs/decisions/010-dialect-sql-in-the-store.md).
     */
    async findPets(ids: readonly number[]): Promise<Array<Pet | undefined>> {
      const pets = petsOfJson(await petsAsJson(rowsWithIds(ids)));
      const byId = new Map(pets.map((pet) => [pet.id, pet]));
      return ids.map((id) => byId.get(id));
    },
    /**
     * Up to `limit` pets after `afterId` in ascending id order, and whether more follow: one
     * statement, in each database's SQL. The row after the page is read only to say that more
     * follow.
     */
    async listPage(query: PageQuery): Promise<Page> {
      const pets = petsOfJson(await petsAsJson(pageRows(query)));
      const hasMore = pets.length > query.limit;
      if (hasMore) pets.pop();
      return { pets, hasMore };
    },
    /**
     * Stores each request's pet under its claim's key, unless a create with the key made at or
     * after its `forgottenBefore` is remembered, or an earlier request of the list has the same
     * key: then it stores nothing for it and answers undefined. Written in each database's SQL
     * (docs/decisions/010-dialect-sql-in-the-store.md).
     */
    insertPetsUnderKeys: postgresql
      ? insertUnderKeysInOneStatement(db)
      : insertUnderKeysInTransactions(db),
  };
}

export type PetStore = ReturnType<typeof createPetStore>;

/** What each query reads or writes, as a trace names its database call (`SELECT pets`). */
export const PET_QUERY_SUMMARIES = {
  insertPetsUnderKeys: { operation: 'INSERT', table: 'pets' },
  findPets: { operation: 'SELECT', table: 'pets' },
  listPage: { operation: 'SELECT', table: 'pets' },
  insertPets: { operation: 'INSERT', table: 'pets' },
  findIdempotencyRecords: { operation: 'SELECT', table: 'idempotency_records' },
} as const satisfies Record<keyof PetStore, { operation: string; table: string }>;
