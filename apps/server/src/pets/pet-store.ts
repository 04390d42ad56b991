import type { Pet, PetStatus } from '@animal-store/contract';
import { type DatabaseClient, Prisma } from '@animal-store/db';
import DataLoader from 'dataloader';
import {
  type DatabaseCall,
  NO_TRACE,
  type RequestTrace,
  TRACING_OFF,
  type Tracing,
} from '../tracing/tracing.js';

/** The wire shape is chosen here, column by column; nothing else leaves the database. */
const PET_COLUMNS = {
  id: true,
  name: true,
  categoryId: true,
  status: true,
} as const satisfies Prisma.PetSelect;

type PetRow = Prisma.PetGetPayload<{ select: typeof PET_COLUMNS }>;

/**
 * libsql cuts text at a NUL and PostgreSQL's text cannot hold one, so a name is stored with NUL
 * escaped as `\0` and `\` as `\\`: reversible, so every read returns the name as sent.
 */
const NUL = String.fromCharCode(0);

function toStoredName(name: string): string {
  return name.replaceAll('\\', '\\\\').replaceAll(NUL, '\\0');
}

function fromStoredName(stored: string): string {
  return stored.replace(/\\([\\0])/g, (_, char: string) => (char === '0' ? NUL : '\\'));
}

type NewPet = Omit<Pet, 'id'>;

/** What a pet was created with, everything but its id, as one comparable value. */
function valuesOf({ name, categoryId, status }: NewPet): string {
  return JSON.stringify([name, categoryId, status]);
}

function toRow(pet: NewPet) {
  return { name: toStoredName(pet.name), categoryId: BigInt(pet.categoryId), status: pet.status };
}

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

export interface IdempotencyClaim {
  scope: string;
  key: string;
  requestHash: string;
}

export type IdempotentCreateResult =
  | { outcome: 'created'; pet: Pet }
  | { outcome: 'replayed'; pet: Pet }
  | { outcome: 'conflict' };

/** Idempotency records are kept a day, as the interface promises, and purged lazily after that. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** What a replay reads of an idempotency record. */
const RECORD_COLUMNS = {
  requestHash: true,
  petId: true,
  createdAt: true,
} as const satisfies Prisma.IdempotencyRecordSelect;

type RecordRow = Prisma.IdempotencyRecordGetPayload<{ select: typeof RECORD_COLUMNS }>;

const UNIQUE_CONSTRAINT_VIOLATION = 'P2002';

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === UNIQUE_CONSTRAINT_VIOLATION;
}

/** Which page of the list to read: `limit` pets after `afterId`, of one status or all. */
interface PageQuery {
  status?: PetStatus | undefined;
  afterId?: number | undefined;
  limit: number;
}

/** A page of pets in ascending id order, and whether more follow it. */
interface Page {
  pets: Pet[];
  hasMore: boolean;
}

/** One page the loads of a turn ask for, who asked, and its one read. */
interface PageRead {
  query: PageQuery;
  askers: RequestTrace[];
  read?: Promise<Page | Error>;
}

/** DataLoader fails the loads whose result is an Error, and only those. */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** The most ids one lookup carries: Prisma binds at most 999 values in one SQLite statement. */
const MAX_IDS_PER_LOOKUP = 999;

/** The most pets one insert carries: 4,000 bound values, well under SQLite's 32,766. */
const MAX_PETS_PER_INSERT = 1_000;

/** The store's database calls, as a trace names them. */
const READ_PETS: DatabaseCall = { operation: 'SELECT', table: 'pets' };
const INSERT_PETS: DatabaseCall = { operation: 'INSERT', table: 'pets' };
const READ_RECORDS: DatabaseCall = { operation: 'SELECT', table: 'idempotency_records' };
const DELETE_RECORDS: DatabaseCall = { operation: 'DELETE', table: 'idempotency_records' };
const INSERT_RECORD: DatabaseCall = { operation: 'INSERT', table: 'idempotency_records' };

/** One load of a batch, and the request it was asked for. */
interface Load<Key> {
  key: Key;
  askedFor: RequestTrace;
}

const keysOf = <Key>(loads: readonly Load<Key>[]) => loads.map(({ key }) => key);
const askersOf = <Key>(loads: readonly Load<Key>[]) => loads.map(({ askedFor }) => askedFor);

/**
 * A DataLoader of `batch` that knows which request asked for each of its loads, so that the
 * call a batch shares is recorded in every one of their traces (`tracing.databaseCall`).
 * Nothing is cached: every load is read after it was asked for.
 */
function sharedLoader<Key, Value>(
  batch: (loads: readonly Load<Key>[]) => Promise<ReadonlyArray<Value | Error>>,
  maxBatchSize = Number.POSITIVE_INFINITY,
): (key: Key, askedFor?: RequestTrace) => Promise<Value> {
  const loader = new DataLoader<Load<Key>, Value>(batch, { cache: false, maxBatchSize });
  return (key, askedFor = NO_TRACE) => loader.load({ key, askedFor });
}

/** Every database call the pets operations make. */
export function createPetStore(db: DatabaseClient, tracing: Tracing = TRACING_OFF) {
  async function readPetsById(ids: readonly number[]): Promise<Array<Pet | undefined>> {
    const rows = await db.pet.findMany({ where: { id: { in: [...ids] } }, select: PET_COLUMNS });
    const byId = new Map(rows.map((row) => [petIdOf(row.id), row]));
    return ids.map((id) => {
      const row = byId.get(id);
      return row && toPet(row);
    });
  }

  /**
   * Pets looked up by id in one event-loop turn are read with one statement, and nothing is
   * cached past it: each lookup still reads the database after it was asked for. Prisma batches
   * concurrent `findUnique` calls into one statement too, but builds, batches and unpacks a whole
   * query per call on the way, which cost `get` a tenth of its CPU.
   */
  const findPet = sharedLoader<number, Pet | undefined>(
    (loads) => tracing.databaseCall(askersOf(loads), READ_PETS, () => readPetsById(keysOf(loads))),
    MAX_IDS_PER_LOOKUP,
  );

  /** Up to `limit` pets after `afterId` in ascending id order, plus whether more follow. */
  async function readPage({ status, afterId, limit }: PageQuery): Promise<Page> {
    const rows = await db.pet.findMany({
      where: { status, id: afterId === undefined ? undefined : { gt: afterId } },
      orderBy: { id: 'asc' },
      take: limit + 1,
      select: PET_COLUMNS,
    });
    return { pets: rows.slice(0, limit).map(toPet), hasMore: rows.length > limit };
  }

  /**
   * The same page asked for more than once in one event-loop turn (the first page, polled by
   * many clients) is read with one statement, and nothing is kept past it: the statement runs
   * after the last of those requests arrived, so each still gets what the database held after
   * it asked. Different pages of one turn are read side by side, each failing on its own.
   */
  const listPets = sharedLoader<PageQuery, Page>((loads) => {
    const pages = new Map<string, PageRead>();
    const pageOfLoad = loads.map(({ key: query, askedFor }) => {
      const key = `${query.status} ${query.afterId} ${query.limit}`;
      let page = pages.get(key);
      if (!page) {
        page = { query, askers: [] };
        pages.set(key, page);
      }
      page.askers.push(askedFor);
      return page;
    });
    for (const page of pages.values()) {
      page.read = tracing
        .databaseCall(page.askers, READ_PETS, () => readPage(page.query))
        .catch(asError);
    }
    return Promise.all(pageOfLoad.map((page) => page.read as Promise<Page | Error>));
  });

  /**
   * One `INSERT … RETURNING` for all of `pets`, written as SQL: Prisma keeps no query plan for
   * `createMany` (its shape changes with the number of rows), so it would compile one on every
   * call, which costs more than the statements it saves.
   */
  function insertPets(pets: readonly NewPet[]): Promise<PetRow[]> {
    const createdAt = new Date();
    const values = pets.map((pet) => {
      const { name, categoryId, status } = toRow(pet);
      return Prisma.sql`(${name}, ${categoryId}, ${status}, ${createdAt})`;
    });
    return db.$queryRaw<PetRow[]>`
      INSERT INTO "pets" ("name", "category_id", "status", "created_at")
      VALUES ${Prisma.join(values)}
      RETURNING "id", "name", "category_id" AS "categoryId", "status"`;
  }

  /**
   * Pets created in one event-loop turn are inserted with one statement, so they cost one
   * statement and one commit instead of one each; each request is answered once that statement
   * is committed, as it would be alone. The rows come back in no promised order: each request
   * takes a row holding exactly the values it sent, and pets with equal values are
   * interchangeable. A statement that fails fails every create in it. A fault (the disk, the
   * connection) would fail them all anyway; the only failure one row can cause is ids running
   * out at 2^53 − 1, where the creates of that turn that would still have fitted fail too.
   */
  const createPet = sharedLoader<NewPet, Pet>(async (loads) => {
    const pets = keysOf(loads);
    const rows = await tracing.databaseCall(askersOf(loads), INSERT_PETS, () => insertPets(pets));
    const created = new Map<string, Pet[]>();
    for (const pet of rows.map(toPet)) {
      const key = valuesOf(pet);
      const same = created.get(key);
      if (same) same.push(pet);
      else created.set(key, [pet]);
    }
    return pets.map(
      (pet) =>
        created.get(valuesOf(pet))?.shift() ?? new Error('An inserted pet was not returned.'),
    );
  }, MAX_PETS_PER_INSERT);

  /**
   * The records of the keys of one turn's idempotent creates. Prisma reads the `findUnique`
   * calls of one tick with one statement by itself: so they are made together here, as one
   * call on behalf of every request that asked.
   */
  const findRecord = sharedLoader<IdempotencyClaim, RecordRow | null>((loads) =>
    tracing.databaseCall(askersOf(loads), READ_RECORDS, () =>
      Promise.all(
        keysOf(loads).map(({ scope, key }) =>
          db.idempotencyRecord
            .findUnique({ where: { scope_key: { scope, key } }, select: RECORD_COLUMNS })
            .catch(asError),
        ),
      ),
    ),
  );

  async function replay(
    claim: IdempotencyClaim,
    askedFor: RequestTrace,
  ): Promise<IdempotentCreateResult | undefined> {
    const record = await findRecord(claim, askedFor);
    if (!record || Date.now() - record.createdAt.getTime() > IDEMPOTENCY_RETENTION_MS)
      return undefined;
    if (record.requestHash !== claim.requestHash) return { outcome: 'conflict' };
    const pet = await findPet(petIdOf(record.petId), askedFor);
    return pet ? { outcome: 'replayed', pet } : undefined;
  }

  /**
   * Creates the pet and records the key in one transaction. When a concurrent request with the
   * same key wins the race, the unique key makes this one roll back and replay the winner.
   */
  async function createPetOnce(
    pet: NewPet,
    claim: IdempotencyClaim,
    askedFor: RequestTrace = NO_TRACE,
  ): Promise<IdempotentCreateResult> {
    const earlier = await replay(claim, askedFor);
    if (earlier) return earlier;
    try {
      const created = await db.$transaction(async (tx) => {
        // Expired records only (this key's included, if it expired): a live record of this
        // key, committed by a concurrent request, must stay and make this insert fail.
        const expiredBefore = new Date(Date.now() - IDEMPOTENCY_RETENTION_MS);
        await tracing.databaseCall([askedFor], DELETE_RECORDS, () =>
          tx.idempotencyRecord.deleteMany({ where: { createdAt: { lt: expiredBefore } } }),
        );
        const row = await tracing.databaseCall([askedFor], INSERT_PETS, () =>
          tx.pet.create({ data: toRow(pet), select: PET_COLUMNS }),
        );
        await tracing.databaseCall([askedFor], INSERT_RECORD, () =>
          tx.idempotencyRecord.create({ data: { ...claim, petId: row.id } }),
        );
        return toPet(row);
      });
      return { outcome: 'created', pet: created };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const winner = await replay(claim, askedFor);
      if (winner) return winner;
      throw error;
    }
  }

  return { findPet, listPets, createPet, createPetOnce };
}

export type PetStore = ReturnType<typeof createPetStore>;
