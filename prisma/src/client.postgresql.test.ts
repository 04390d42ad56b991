import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Prisma } from '../generated/sqlite/client.js';
import type { ReplyContinuation } from './adapters/continued-replies.js';
import { createPrismaClient, type DatabaseClient, poolStatsOf, textReaderOf } from './client.js';
import { isDatabaseFault } from './database-faults.js';
import { migrateDatabase } from './migrate.js';
import { dropDatabase, postgresUrl, uniqueDatabaseName } from './test-fixtures/postgres.js';

let database: string;
let clients: DatabaseClient[];

beforeEach(async () => {
  database = uniqueDatabaseName();
  clients = [];
  await migrateDatabase(postgresUrl(database));
});

afterEach(async () => {
  for (const client of clients) await client.$disconnect();
  await dropDatabase(database);
});

/**
 * A continueReplies as the server's: the replies of one event-loop turn resume together, in the
 * next check phase, their callers' continuations then running stage by stage.
 */
function resumingTogetherEachTurn(): ReplyContinuation {
  let waiting: Array<() => void> = [];
  const resumeAll = () => {
    const resumed = waiting;
    waiting = [];
    for (const resume of resumed) resume();
  };
  const nextTurn = () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length === 1) setImmediate(resumeAll);
    });
  return async (reply) => {
    const value = await reply;
    await nextTurn();
    return value;
  };
}

function connect(options?: Parameters<typeof createPrismaClient>[1]) {
  const client = createPrismaClient(postgresUrl(database), options);
  clients.push(client);
  return client;
}

describe('createPrismaClient on PostgreSQL', () => {
  it('passes the reply to every statement outside interactive transactions through continueReplies', async () => {
    const continued: string[] = [];
    const db = connect({
      continueReplies: (reply) => {
        continued.push('reply');
        return reply.finally(() => continued.push('settled'));
      },
    });
    await db.pet.findMany();
    expect(continued).toEqual(['reply', 'settled']);

    // A text read's reply too, sent past the client (text-reads.ts).
    continued.length = 0;
    expect(await textReaderOf(db)(Prisma.sql`SELECT 'read'`)).toBe('read');
    expect(continued).toEqual(['reply', 'settled']);

    // A failed statement's reply too, and its error reaches the caller as it was.
    continued.length = 0;
    await expect(db.$queryRawUnsafe('SELECT * FROM no_such_table')).rejects.toMatchObject({
      code: 'P2010',
    });
    expect(continued).toEqual(['reply', 'settled']);

    continued.length = 0;
    await db.$transaction(async (tx) => {
      await tx.pet.count();
    });
    expect(continued).toEqual([]);
  });

  it('lets the caller resume the replies of one turn together (as the server does), not one whole caller after another', async () => {
    const db = connect({ continueReplies: resumingTogetherEachTurn() });
    // Two pooled connections, open and idle.
    await Promise.all([db.$queryRaw`SELECT 1`, db.$queryRaw`SELECT 2`]);
    const steps: string[] = [];
    const caller = async (name: string) => {
      await db.$queryRaw`SELECT pg_sleep(0.1)`;
      steps.push(`${name}1`);
      await Promise.resolve();
      steps.push(`${name}2`);
    };
    const callers = Promise.all([caller('a'), caller('b')]);
    // Both replies come in while the event loop is held, so they wait in their sockets and are
    // then read in one phase, each in its own callback.
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        const until = Date.now() + 400;
        while (Date.now() < until) {
          // Holding the event loop, as a busy server does.
        }
        resolve();
      }, 50),
    );
    await callers;
    // Whichever socket is read first: both first steps come before either second step.
    expect(steps.slice(0, 2).sort()).toEqual(['a1', 'b1']);
    expect(steps.slice(2).sort()).toEqual(['a2', 'b2']);
  });

  it('tells onQuery of every statement once, with the COMMIT Prisma sends to end a transaction', async () => {
    const events: boolean[] = [];
    const db = connect({ onQuery: (event) => events.push(event.failed) });
    await db.pet.findMany();
    await db.$queryRawUnsafe('SELECT * FROM no_such_table').catch(() => {});
    await db.$transaction(async (tx) => {
      await tx.idempotencyRecord.deleteMany({ where: { createdAt: { lt: new Date(0) } } });
      await tx.pet.create({ data: { name: 'Rex', categoryId: 1n, status: 'available' } });
    });
    expect(events).toEqual([false, true, false, false, false]);
  });

  it('creates and reads pets, with ids growing in creation order and never reused', async () => {
    const db = connect();
    const rex = await db.pet.create({
      data: { name: 'Rex', categoryId: 9_007_199_254_740_991n, status: 'available' },
    });
    const tom = await db.pet.create({ data: { name: 'Tom', categoryId: 2n, status: 'sold' } });
    await db.pet.delete({ where: { id: tom.id } });
    const kit = await db.pet.create({ data: { name: 'Kit', categoryId: 3n, status: 'available' } });

    expect(tom.id).toBeGreaterThan(rex.id);
    expect(kit.id).toBeGreaterThan(tom.id);
    expect(await db.pet.findUnique({ where: { id: rex.id } })).toMatchObject({
      name: 'Rex',
      categoryId: 9_007_199_254_740_991n,
      status: 'available',
      createdAt: expect.any(Date),
    });
    const available = await db.pet.findMany({
      where: { status: 'available' },
      orderBy: { id: 'asc' },
    });
    expect(available.map((pet) => pet.name)).toEqual(['Rex', 'Kit']);
  });

  it('keeps idempotency records and server secrets, and rolls back failed transactions', async () => {
    const db = connect();
    const pet = await db.pet.create({ data: { name: 'Rex', categoryId: 1n, status: 'available' } });
    const claim = { scope: 'createPet', key: 'k-1', requestHash: 'h', petId: pet.id };
    await db.idempotencyRecord.create({ data: claim });
    await expect(db.idempotencyRecord.create({ data: claim })).rejects.toMatchObject({
      code: 'P2002',
    });
    const upsert = (value: string) =>
      db.serverSecret.upsert({
        where: { name: 'cursor-key' },
        create: { name: 'cursor-key', value },
        update: {},
      });
    await upsert('first');
    expect((await upsert('second')).value).toBe('first');

    await expect(
      db.$transaction(async (tx) => {
        await tx.pet.create({ data: { name: 'Ghost', categoryId: 1n, status: 'available' } });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect((await db.pet.findMany()).map((row) => row.name)).toEqual(['Rex']);
  });

  it('prepares each statement once per connection: run again, it is sent by name', async () => {
    const db = connect({ poolSize: 1 });
    for (const id of [1, 2]) await db.pet.findMany({ where: { id: { gt: id } }, take: 3 });
    await db.pet.create({ data: { name: 'Prepared', categoryId: 1n, status: 'available' } });

    // The one connection's prepared statements: each text Prisma sent, prepared once.
    const prepared = await db.$queryRaw<Array<{ name: string; statement: string }>>`
      SELECT name, statement FROM pg_prepared_statements`;
    const reads = prepared.filter(({ statement }) =>
      /^SELECT .* FROM "public"\."pets"/.test(statement),
    );
    const creates = prepared.filter(({ statement }) =>
      /^INSERT INTO "public"\."pets"/.test(statement),
    );
    expect(reads).toHaveLength(1);
    expect(creates).toHaveLength(1);
    expect(reads[0]?.name).toMatch(/^s\d+$/);
  });

  it('cancels statements running longer than the statement timeout', async () => {
    const db = connect({ statementTimeoutMs: 500 });
    await expect(db.$queryRawUnsafe('SELECT pg_sleep(2)')).rejects.toThrow(/statement timeout/i);
    expect(await db.pet.count()).toBe(0);
  });

  it('gives up on a query the server does not answer in time, whatever the server does', async () => {
    const db = connect({ statementTimeoutMs: 0, queryTimeoutMs: 300 });
    await expect(db.$queryRawUnsafe('SELECT pg_sleep(3)::text')).rejects.toThrow(/timeout/i);
    // The connection it gave up on is dropped, not reused: the next query works.
    expect(await db.pet.count()).toBe(0);
  });

  it('defaults to a 1.5 s statement timeout and uses the pool size given', async () => {
    const db = connect({ poolSize: 3 });
    const [{ statement_timeout }] =
      await db.$queryRawUnsafe<[{ statement_timeout: string }]>('SHOW statement_timeout');
    expect(statement_timeout).toBe('1500ms');
    // Six concurrent sleeps on three connections take two rounds.
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 6 }, () => db.$queryRawUnsafe('SELECT pg_sleep(0.3)::text')),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
  });

  /**
   * Holds the only connection of `db`'s pool in a transaction for `ms`; resolves once it is held,
   * with the transaction's end. Opening that connection is bound by the connect deadline under
   * test, which a loaded machine can miss while connecting: not what the tests check, so it opens
   * again (a few times at most).
   */
  async function holdingTheOnlyConnection(db: DatabaseClient, ms: number) {
    for (let attempt = 1; ; attempt += 1) {
      let holding = () => {};
      const held = new Promise<'held'>((resolve) => {
        holding = () => resolve('held');
      });
      const transaction = db.$transaction(async (tx) => {
        await tx.pet.count();
        holding();
        await new Promise((resolve) => setTimeout(resolve, ms));
      });
      const outcome = await Promise.race([
        held,
        transaction.then(
          () => 'held',
          (error) => error,
        ),
      ]);
      if (outcome === 'held') return { ended: transaction };
      if (attempt === 5) throw outcome;
    }
  }

  it('lets a transaction wait for a connection as long as connectTimeoutMs, not Prisma’s 2 s beside it', async () => {
    const db = connect({ poolSize: 1, connectTimeoutMs: 10_000 });
    // The only connection is held past 2 s by one transaction while another waits for it.
    const first = await holdingTheOnlyConnection(db, 2_500);
    const second = db.$transaction((tx) => tx.pet.count());
    await expect(Promise.all([first.ended, second])).resolves.toEqual([undefined, 0]);
  });

  it('fails a transaction that gets no connection within connectTimeoutMs as a database fault (the server answers 503)', async () => {
    const db = connect({ poolSize: 1, connectTimeoutMs: 300 });
    const first = await holdingTheOnlyConnection(db, 1_000);
    const refused = await db.$transaction((tx) => tx.pet.count()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(isDatabaseFault(refused)).toBe(true);
    await first.ended;
  });

  it('tells how its pool stands: connections open, idle, and queries waiting for one', async () => {
    const db = connect({ poolSize: 2 });
    expect(poolStatsOf(db)).toEqual({ total: 0, idle: 0, waiting: 0 });
    // Prisma's queries start when awaited: Promise.all sends all three at once.
    const sleeps = Promise.all(
      Array.from({ length: 3 }, () => db.$queryRawUnsafe('SELECT pg_sleep(0.5)::text')),
    );
    let busy = poolStatsOf(db);
    for (let attempt = 0; attempt < 100 && busy?.waiting !== 1; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      busy = poolStatsOf(db);
    }
    expect(busy).toEqual({ total: 2, idle: 0, waiting: 1 });
    await sleeps;
    expect(poolStatsOf(db)).toEqual({ total: 2, idle: 2, waiting: 0 });
  });

  it('refuses a bad pool size or timeout', () => {
    const url = postgresUrl(database);
    expect(() => createPrismaClient(url, { poolSize: 0 })).toThrow('pool size');
    expect(() => createPrismaClient(url, { statementTimeoutMs: -1 })).toThrow('statement timeout');
    expect(() => createPrismaClient(url, { queryTimeoutMs: 1.5 })).toThrow('query timeout');
    expect(() => createPrismaClient(url, { connectTimeoutMs: -1 })).toThrow('connect timeout');
  });
});
