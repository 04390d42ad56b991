/**
 * The batching layer (src/batching/): requests that arrive together go through admission and the
 * stores together, so they share database statements. Counted through the database client's
 * statement observer, on the suite's database, with rate limits in this process and in Redis.
 * Without the turn batch, each of these requests would run through the stack alone and cost its
 * own statements: 50 where these tests allow a few. And the turn invariant it relies on, watched
 * on the batching layer's diagnostics channels: what is admitted together reaches the stores
 * together.
 */
import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BATCHING_CHANNELS,
  type DispatchedMessage,
  type ReleasedMessage,
} from '../src/batching/diagnostics.js';
import { RedisRateLimitStore } from '../src/limits/redis-store.js';
import { createLogger } from '../src/logger.js';
import { TEST_PROVIDER } from '../testing/test-database.js';
import { SHARED_REDIS_URL } from '../testing/test-services.js';
import { sendTogether } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Requests sent together, each on its own connection. */
const TOGETHER = 50;

/**
 * The turns of the server's event loop that requests sent together may take to arrive on a
 * busy machine: each turn is one batch, and costs one shared statement.
 */
const MOST_TURNS = 5;

/**
 * A turn's transactions queue for the pool's connections. Beside the rest of the test command on
 * two cores, one waited past the 2 s a server gives a transaction to get one, and its create was
 * answered 500: what is counted here is statements; the deadlines are the database-outage and
 * statement-timeout tests'.
 */
const ROOMY_DEADLINES = { connectTimeoutMs: 60_000, queryTimeoutMs: 60_000, statementTimeoutMs: 0 };

describe.each(['in this process', 'in Redis'] as const)(
  'Requests of one turn, counted %s',
  (counted) => {
    let api: TestServer;
    let statements = 0;
    const petIds: number[] = [];

    beforeAll(async () => {
      const rateLimits =
        counted === 'in Redis'
          ? new RedisRateLimitStore(SHARED_REDIS_URL, createLogger('silent'), {
              keyPrefix: `test:${randomUUID()}:`,
            })
          : undefined;
      if (rateLimits) expect(await rateLimits.connected()).toBe(true);
      api = await startTestServer({
        rateLimits,
        databaseDeadlines: ROOMY_DEADLINES,
        onQuery: () => {
          statements += 1;
        },
      });
      for (let i = 0; i < TOGETHER; i += 1) {
        const res = await api.request('/v1/pets', {
          method: 'POST',
          json: { name: `Pet ${i}`, categoryId: 1 },
        });
        petIds.push((await res.json()).id);
      }
    });
    afterAll(() => api.close());

    const request = (method: string, path: string, body?: unknown, headers: string[] = []) => {
      const text = body === undefined ? '' : JSON.stringify(body);
      return [
        `${method} ${path} HTTP/1.1`,
        'Host: localhost',
        `Authorization: Bearer ${api.apiKey}`,
        'Connection: close',
        ...headers,
        ...(body === undefined
          ? []
          : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`]),
        '',
        text,
      ].join('\r\n');
    };

    /**
     * The statements `count` requests cost, sent together: the `i`th is `requestAt(i)`. One more,
     * sent alone first, warms the server up.
     */
    async function statementsFor(count: number, requestAt: (index: number) => string) {
      await sendTogether(api.server, [requestAt(count)]);
      statements = 0;
      const answers = await sendTogether(
        api.server,
        Array.from({ length: count }, (_, index) => requestAt(index)),
      );
      return { count: statements, answers };
    }

    /** The releases of the turn batch and the shared store calls made while `send` ran. */
    async function watchedBatching(send: () => Promise<unknown>) {
      const released: ReleasedMessage[] = [];
      const dispatched: DispatchedMessage[] = [];
      const onRelease = (message: unknown) => released.push(message as ReleasedMessage);
      const onDispatch = (message: unknown) => dispatched.push(message as DispatchedMessage);
      subscribe(BATCHING_CHANNELS.released, onRelease);
      subscribe(BATCHING_CHANNELS.dispatched, onDispatch);
      try {
        await send();
      } finally {
        unsubscribe(BATCHING_CHANNELS.released, onRelease);
        unsubscribe(BATCHING_CHANNELS.dispatched, onDispatch);
      }
      return { released, dispatched };
    }

    it('the turn invariant: requests admitted in one turn make their first calls to each store method in one shared call', async () => {
      const label = randomUUID();
      const requestAt = (index: number) =>
        [
          request('GET', `/v1/pets/${petIds[index % TOGETHER]}`),
          request('GET', '/v1/pets?limit=10'),
          request('POST', '/v1/pets', { name: `${label} ${index}`, categoryId: 2 }),
          // Its first call claims its key, with the turn's other claims.
          request('POST', '/v1/pets', { name: label, categoryId: 3 }, [
            `Idempotency-Key: ${label}-${index}`,
          ]),
        ][index % 4] as string;
      await sendTogether(api.server, [requestAt(0)]);
      const { released, dispatched } = await watchedBatching(async () => {
        const answers = await sendTogether(
          api.server,
          Array.from({ length: TOGETHER * 2 }, (_, index) => requestAt(index)),
        );
        expect(answers.every(({ status }) => status === 200 || status === 201)).toBe(true);
      });
      // The turn batch held many requests at once: there was something to keep together.
      expect(Math.max(...released.map(({ requests }) => requests))).toBeGreaterThan(4);
      const callsOfTurn = new Map<string, Set<number>>();
      dispatched.forEach(({ method, turns, full }, call) => {
        if (full) return;
        for (const turn of turns) {
          const key = `${method} of the requests admitted in turn ${turn}`;
          callsOfTurn.set(key, (callsOfTurn.get(key) ?? new Set()).add(call));
        }
      });
      expect(callsOfTurn.size).toBeGreaterThanOrEqual(3);
      for (const [key, calls] of callsOfTurn) expect(calls.size, key).toBe(1);
    });

    it(`${TOGETHER} asking for the same page read it with one statement per turn`, async () => {
      const { count, answers } = await statementsFor(TOGETHER, () =>
        request('GET', '/v1/pets?limit=10'),
      );
      expect(answers.map(({ status }) => status)).toEqual(Array(TOGETHER).fill(200));
      expect(new Set(answers.map(({ body }) => body)).size).toBe(1);
      expect(count).toBeLessThanOrEqual(MOST_TURNS);
    });

    it(`${TOGETHER} gets of distinct ids read them with one statement per turn`, async () => {
      const { count, answers } = await statementsFor(TOGETHER, (index) =>
        request('GET', `/v1/pets/${petIds[index % TOGETHER]}`),
      );
      expect(answers.map(({ body }) => JSON.parse(body).id)).toEqual(petIds);
      expect(count).toBeLessThanOrEqual(MOST_TURNS);
    });

    it(`${TOGETHER} distinct pages cost one statement each, and nothing more`, async () => {
      const { count, answers } = await statementsFor(TOGETHER, (index) =>
        request('GET', `/v1/pets?limit=${index + 1}`),
      );
      expect(answers.map(({ body }) => JSON.parse(body).length)).toEqual(
        Array.from({ length: TOGETHER }, (_, i) => i + 1),
      );
      expect(count).toBe(TOGETHER);
    });

    it(`${TOGETHER} creates are inserted with one statement per turn`, async () => {
      const label = randomUUID();
      const { count, answers } = await statementsFor(TOGETHER, (index) =>
        request('POST', '/v1/pets', { name: `${label} ${index}`, categoryId: 2 }),
      );
      expect(answers.map(({ status }) => status)).toEqual(Array(TOGETHER).fill(201));
      expect(new Set(answers.map(({ body }) => JSON.parse(body).id)).size).toBe(TOGETHER);
      expect(count).toBeLessThanOrEqual(MOST_TURNS);
    });

    it(`${TOGETHER} idempotent creates: new keys are claimed together, on PostgreSQL with one statement per turn; replays answer the first pets`, async () => {
      const label = randomUUID();
      const create = (index: number) =>
        request('POST', '/v1/pets', { name: label, categoryId: 3 }, [
          `Idempotency-Key: ${label}-${index}`,
        ]);
      // What one new key costs alone: its claim, which stores the pet too. On SQLite, its batch
      // transaction: the expired records forgotten, the pet unless the key has a record, the
      // record for the pet (the turn's transactions then share one commit).
      const alone = (await statementsFor(1, (index) => create(-1 - index))).count;
      expect(alone).toBe(TEST_PROVIDER === 'postgresql' ? 1 : 3);
      const claims = TEST_PROVIDER === 'postgresql' ? MOST_TURNS : TOGETHER * alone;
      // (On PostgreSQL, the first create of a minute purges expired records first.)
      const first = await statementsFor(TOGETHER, create);
      expect(first.answers.map(({ status }) => status)).toEqual(Array(TOGETHER).fill(201));
      expect(first.count).toBeLessThanOrEqual(claims + 1);

      const replays = await statementsFor(TOGETHER, create);
      expect(replays.answers.map(({ status }) => status)).toEqual(Array(TOGETHER).fill(201));
      expect(replays.answers.map(({ body }) => JSON.parse(body).id)).toEqual(
        first.answers.map(({ body }) => JSON.parse(body).id),
      );
      // The claims that found the keys, then their records and their pets, each read together.
      expect(replays.count).toBeLessThanOrEqual(claims + 2 * MOST_TURNS + 1);
    });
  },
);
