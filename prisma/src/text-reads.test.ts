// Text reads on both databases: SQLite in a file of this test's own, PostgreSQL in a database
// of its own on the test server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Prisma } from '../generated/sqlite/client.js';
import {
  createPrismaClient,
  type DatabaseClient,
  type DatabaseClientOptions,
  textReaderOf,
} from './client.js';
import { isDatabaseFault } from './database-faults.js';
import { migrateDatabase } from './migrate.js';
import { dropDatabase, postgresUrl, uniqueDatabaseName } from './test-fixtures/postgres.js';

/**
 * Names a driver or a JSON writer could get wrong (a NUL is the store's to escape: neither
 * database keeps one in text).
 */
const TRAP_NAMES = ['\\u0000 written out, \t and \u0001', 'astral 🐕 and \u2028', 'quotes "\'', ''];

const DIALECTS = {
  sqlite: {
    async create() {
      const folder = await mkdtemp(join(tmpdir(), 'db-text-reads-'));
      return {
        url: `file:${join(folder, 'test.db')}`,
        drop: () => rm(folder, { recursive: true }),
      };
    },
    /** The names of the pets with `ids`, as one JSON array the database writes. */
    namesWithIds: (ids: number[]) => Prisma.sql`
      SELECT json_group_array("name" ORDER BY "id") FROM "pets"
      WHERE "id" IN (SELECT "value" FROM json_each(${JSON.stringify(ids)}))`,
    /** A table only the connection that makes it sees. */
    temporaryTable: 'CREATE TEMP TABLE "seen" AS SELECT \'this connection\' AS "value"',
  },
  postgresql: {
    async create() {
      const name = uniqueDatabaseName();
      return { url: postgresUrl(name), drop: () => dropDatabase(name) };
    },
    namesWithIds: (ids: number[]) => Prisma.sql`
      SELECT coalesce(json_agg("name" ORDER BY "id"), '[]')::text FROM "pets"
      WHERE "id" = ANY (${ids.map(String)}::bigint[])`,
    temporaryTable: 'CREATE TEMP TABLE "seen" AS SELECT \'this connection\'::text AS "value"',
  },
} as const;

describe.each(Object.entries(DIALECTS))('text reads on %s', (_, dialect) => {
  let database: { url: string; drop: () => Promise<void> };
  let clients: DatabaseClient[];

  beforeEach(async () => {
    database = await dialect.create();
    clients = [];
    await migrateDatabase(database.url);
  });

  afterEach(async () => {
    for (const client of clients) await client.$disconnect();
    await database.drop();
  });

  function connect(options?: DatabaseClientOptions) {
    const client = createPrismaClient(database.url, options);
    clients.push(client);
    return client;
  }

  async function storedIds(db: DatabaseClient, names: readonly string[]): Promise<number[]> {
    const pets = await db.pet.createManyAndReturn({
      data: names.map((name) => ({ name, categoryId: 1n, status: 'available' })),
      select: { id: true },
    });
    return pets.map(({ id }) => Number(id));
  }

  it('answers the text the database wrote, as Prisma’s $queryRaw reads it, with lists, numbers and strings bound', async () => {
    const db = connect();
    const ids = await storedIds(db, TRAP_NAMES);
    const readText = textReaderOf(db);

    const statement = dialect.namesWithIds([...ids].reverse());
    const text = await readText(statement);
    expect(JSON.parse(text)).toEqual(TRAP_NAMES);
    const [row] = await db.$queryRaw<[Record<string, string>]>(statement);
    expect(text).toBe(Object.values(row)[0]);

    expect(await readText(dialect.namesWithIds([]))).toBe('[]');
    const bound = Prisma.sql`SELECT ${'a "string"'} || '/' || ${2 ** 53 - 1} || '/' || ${null}`;
    expect(await readText(Prisma.sql`SELECT coalesce((${bound}), 'null')`)).toBe('null');
    // Numbers are bound as the client binds them: on SQLite as REAL, whatever their value.
    const numbers = Prisma.sql`SELECT ${'a "string"'} || '/' || ${2 ** 53 - 1} || '/' || ${0.5}`;
    const [viaClient] = await db.$queryRaw<[Record<string, string>]>(numbers);
    expect(await readText(numbers)).toBe(Object.values(viaClient)[0]);
    expect(await readText(numbers)).toMatch(
      /^a "string"\/9(007199254740991|\.00719925474099e\+15)\/0\.5$/,
    );
  });

  it('refuses a value the adapter would bind otherwise than Prisma’s client: not a database fault', async () => {
    const readText = textReaderOf(connect());
    for (const value of [1n, new Date(0), { an: 'object' }, true, [1n]]) {
      const refused = readText(Prisma.sql`SELECT 'never' WHERE ${value} IS NOT NULL`);
      await expect(refused).rejects.toThrow(/binds strings, numbers, null and lists of them/);
      await expect(refused).rejects.not.toSatisfy(isDatabaseFault);
    }
  });

  it('runs on the client’s connection (its pool’s one on PostgreSQL), connecting it first if no query has, and again after $disconnect', async () => {
    // A temporary table is seen only on the connection that made it.
    const db = connect({ poolSize: 1 });
    const readText = textReaderOf(db);
    expect(await readText(Prisma.sql`SELECT 'connected'`)).toBe('connected');
    await db.$executeRawUnsafe(dialect.temporaryTable);
    expect(await readText(Prisma.sql`SELECT "value" FROM "seen"`)).toBe('this connection');

    await db.$disconnect();
    expect(await readText(Prisma.sql`SELECT 'connected again'`)).toBe('connected again');
  });

  it('is told to onQuery like the client’s statements', async () => {
    const told: string[] = [];
    const db = connect({ onQuery: ({ sql, failed }) => told.push(`${sql} ${failed}`) });
    await textReaderOf(db)(Prisma.sql`SELECT 'told'`);
    expect(told).toEqual(["SELECT 'told' false"]);
  });

  it('fails as a database fault where the database cannot serve, and as a plain error for a statement that answers more than one text', async () => {
    const readText = textReaderOf(connect());
    const missingTable = readText(Prisma.sql`SELECT "name" FROM "no_such_table"`);
    await expect(missingTable).rejects.toSatisfy(isDatabaseFault);

    for (const statement of [
      Prisma.sql`SELECT 'one', 'two'`,
      Prisma.sql`SELECT "name" FROM "pets"`,
      Prisma.sql`SELECT 1`,
    ]) {
      const refused = readText(statement);
      await expect(refused).rejects.toThrow(/one row of one text column/);
      await expect(refused).rejects.not.toSatisfy(isDatabaseFault);
    }
  });
});

describe('text reads on PostgreSQL, unreachable', () => {
  it('fail as a database fault', async () => {
    const url = new URL(postgresUrl('animal_store_unreachable'));
    url.port = '1';
    const db = createPrismaClient(url.toString(), { connectTimeoutMs: 500 });
    try {
      await expect(textReaderOf(db)(Prisma.sql`SELECT 'never'`)).rejects.toSatisfy(isDatabaseFault);
    } finally {
      await db.$disconnect();
    }
  });
});
