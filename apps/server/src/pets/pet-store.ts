import type { Pet, PetStatus } from '@animal-store/contract';
import { type DatabaseClient, Prisma } from '@animal-store/db';
import { fromStoredName, toStoredName } from './stored-names.js';

/** The wire shape is chosen here, column by column; nothing else leaves the database. */
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

/** The most ids `findPets` takes: Prisma binds at most 999 values in one SQLite statement. */
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

/** Every query of the pets operations, on `db` or on a transaction of it. */
function petQueries(db: DatabaseClient | Prisma.TransactionClient) {
  return {
    /** The pets with `ids`, in their order; undefined where no pet has the id. */
    async findPets(ids: readonly number[]): Promise<Array<Pet | undefined>> {
      const rows = await db.pet.findMany({ where: { id: { in: [...ids] } }, select: PET_COLUMNS });
      const byId = new Map(rows.map((row) => [petIdOf(row.id), toPet(row)]));
      return ids.map((id) => byId.get(id));
    },

    /** Up to `limit` pets after `afterId` in ascending id order, and whether more follow. */
    async listPage({ status, afterId, limit }: PageQuery): Promise<Page> {
      const rows = await db.pet.findMany({
        where: { status, id: afterId === undefined ? undefined : { gt: afterId } },
        orderBy: { id: 'asc' },
        take: limit + 1,
        select: PET_COLUMNS,
      });
      return { pets: rows.slice(0, limit).map(toPet), hasMore: rows.length > limit };
    },

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

    /** Forgets the records made before `before`. */
    async deleteIdempotencyRecordsBefore(before: Date): Promise<void> {
      await db.idempotencyRecord.deleteMany({ where: { createdAt: { lt: before } } });
    },

    /** Records that `claim`'s key made the pet `petId`; a unique violation if it is taken. */
    async insertIdempotencyRecord(claim: IdempotencyClaim, petId: number): Promise<void> {
      await db.idempotencyRecord.create({ data: { ...claim, petId }, select: { scope: true } });
    },
  };
}

export type PetQueries = ReturnType<typeof petQueries>;

/** Every database call the pets operations make: one method per query, and a transaction. */
export function createPetStore(db: DatabaseClient) {
  return {
    ...petQueries(db),
    /** Runs `work` in one transaction, with the queries on it. */
    transaction<T>(work: (queries: PetQueries) => Promise<T>): Promise<T> {
      return db.$transaction((tx) => work(petQueries(tx)));
    },
  };
}

export type PetStore = ReturnType<typeof createPetStore>;

/** What each query reads or writes, as a trace names its database call (`SELECT pets`). */
export const PET_QUERY_SUMMARIES = {
  findPets: { operation: 'SELECT', table: 'pets' },
  listPage: { operation: 'SELECT', table: 'pets' },
  insertPets: { operation: 'INSERT', table: 'pets' },
  findIdempotencyRecords: { operation: 'SELECT', table: 'idempotency_records' },
  deleteIdempotencyRecordsBefore: { operation: 'DELETE', table: 'idempotency_records' },
  insertIdempotencyRecord: { operation: 'INSERT', table: 'idempotency_records' },
} as const satisfies Record<keyof PetQueries, { operation: string; table: string }>;
