/**
 * The client against the real server over real HTTP. Where a fault is needed (a 429 with a
 * short Retry-After, a dropped connection, a gateway error), a small proxy in front of the
 * server produces it; every other answer is the server's own.
 *
 * @module-tag node-runtime: the client's fetch is Node's
 */

import { type LiveServer, ROOMY, startLiveServer } from '@animal-store/server/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, type DeprecationNotice, ListPetsError } from '../src/index.js';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.js';

let server: LiveServer;
let proxy: FaultProxy;
let apiKey: string;

beforeAll(async () => {
  server = await startLiveServer('client');
  proxy = await startFaultProxy(server.baseUrl);
  apiKey = await server.createKey(ROOMY);
});

afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

const rateLimited = (retryAfterSeconds: number) =>
  ({
    kind: 'answer',
    status: 429,
    headers: {
      'retry-after': String(retryAfterSeconds),
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + retryAfterSeconds),
    },
    body: { code: 'rate_limited', message: 'Too many requests', status: 429 },
  }) as const;

/** Retry options that wait for nothing, with the jitter `random` gives, recording each wait. */
function recordedWaits(random: number) {
  const delays: number[] = [];
  const sleep = async (ms: number) => {
    delays.push(ms);
  };
  return { delays, retry: { random: () => random, sleep } };
}

/** What a server shedding load answers (docs/interface.md, "When the server is busy"). */
const busy = (retryAfterSeconds: number) =>
  ({
    kind: 'answer',
    status: 503,
    headers: { 'retry-after': String(retryAfterSeconds) },
    body: {
      code: 'service_unavailable',
      message: 'The server is busy. Try again after the seconds Retry-After gives.',
      status: 503,
    },
  }) as const;

describe('retries', () => {
  test('a 429 is retried after the advertised Retry-After, then succeeds', async () => {
    const client = createClient({ baseUrl: proxy.baseUrl, apiKey });
    proxy.plan(rateLimited(1));
    const before = proxy.requests.length;
    const startedAt = performance.now();

    const result = await client.pets.listPets({ query: { limit: 1 } });

    const waited = performance.now() - startedAt;
    expect(result.status).toBe(200);
    expect(proxy.requests.length - before).toBe(2);
    expect(waited).toBeGreaterThanOrEqual(1000);
    // The successful answer's headers replace those of the 429.
    expect(client.rateLimit?.limit).toBe(100_000);
  });

  test('a Retry-After above the ceiling is not waited for: the typed 429 comes back', async () => {
    const client = createClient({
      baseUrl: proxy.baseUrl,
      apiKey,
      retry: { maxRetryAfterMs: 500 },
    });
    proxy.plan(rateLimited(900));
    const startedAt = performance.now();

    const result = await client.pets.listPets();

    expect(performance.now() - startedAt).toBeLessThan(500);
    expect(result.status).toBe(429);
    if (result.status === 429) expect(result.body.code).toBe('rate_limited');
    expect(client.rateLimit).toMatchObject({ limit: 60, remaining: 0 });
  });

  test("the server's own 429 carries Retry-After, and retry: false returns it at once", async () => {
    const tightKey = await server.createKey({ plan: 'enterprise', perMinute: 1, perDay: 1000 });
    const client = createClient({ baseUrl: server.baseUrl, apiKey: tightKey, retry: false });
    await client.pets.listPets();
    const result = await client.pets.listPets();
    expect(result.status).toBe(429);
    expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(client.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
  });

  test('a create retried after a dropped connection yields one pet', async () => {
    const client = createClient({ baseUrl: proxy.baseUrl, apiKey });
    const name = `Dropped-${crypto.randomUUID()}`;
    proxy.plan({ kind: 'drop-after-forward' });
    const before = proxy.requests.length;
    const answersBefore = proxy.answers.length;

    const result = await client.pets.createPet({ body: { name, categoryId: 7 } });

    expect(result.status).toBe(201);
    const posts = proxy.requests.slice(before);
    expect(posts).toHaveLength(2);
    const [first, second] = posts.map((seen) => seen.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    const [dropped, replayed] = proxy.answers.slice(answersBefore);
    expect(dropped?.status).toBe(201);
    expect(replayed?.headers['idempotent-replayed']).toBe('true');
    if (result.status === 201) expect(result.body.id).toBe(JSON.parse(dropped?.body ?? '').id);

    const named = [];
    for await (const pet of client.pets.listAllPets({ limit: 100 })) {
      if (pet.name === name) named.push(pet);
    }
    expect(named).toHaveLength(1);
  });

  test('502, 503 and 504 are retried with exponential backoff and full jitter', async () => {
    const { delays, retry } = recordedWaits(0.5);
    const client = createClient({
      baseUrl: proxy.baseUrl,
      apiKey,
      retry: { ...retry, baseDelayMs: 100 },
    });
    const unavailable = (status: number) =>
      ({ kind: 'answer', status, headers: {}, body: { code: 'x', message: 'x', status } }) as const;
    proxy.plan(unavailable(502), unavailable(503), unavailable(504));

    const result = await client.pets.listPets({ query: { limit: 1 } });

    expect(result.status).toBe(200);
    expect(delays).toEqual([50, 100, 200]);
  });

  test('a server shedding load is waited out: its Retry-After and a random part of it again', async () => {
    const { delays, retry } = recordedWaits(0.5);
    const client = createClient({ baseUrl: proxy.baseUrl, apiKey, retry });
    proxy.plan(busy(1), busy(2));
    const before = proxy.requests.length;

    const result = await client.pets.listPets({ query: { limit: 1 } });

    expect(result.status).toBe(200);
    expect(proxy.requests.length - before).toBe(3);
    expect(delays).toEqual([1500, 3000]);
  });

  test('while a server keeps shedding, the retry budget runs out: the next 503 comes back at once', async () => {
    const { delays, retry } = recordedWaits(0);
    const client = createClient({ baseUrl: proxy.baseUrl, apiKey, retry });
    proxy.plan(...Array.from({ length: 6 }, () => busy(1)));

    // Five attempts, the most a call makes, four waits of Retry-After between them.
    expect((await client.pets.listPets()).status).toBe(503);
    expect(delays).toEqual([1000, 1000, 1000, 1000]);
    // Half the budget's tokens are spent: the next call is not retried, and waits for nothing.
    const before = proxy.requests.length;
    const result = await client.pets.listPets();
    expect(result.status).toBe(503);
    expect(result.headers.get('retry-after')).toBe('1');
    expect(proxy.requests.length - before).toBe(1);
    expect(delays).toHaveLength(4);
  });

  test('attempts are bounded: the last answer comes back when they run out', async () => {
    const client = createClient({
      baseUrl: proxy.baseUrl,
      apiKey,
      retry: { maxAttempts: 2, sleep: async () => {} },
    });
    const unavailable = {
      kind: 'answer',
      status: 503,
      headers: {},
      body: { code: 'service_unavailable', message: 'Database down', status: 503 },
    } as const;
    proxy.plan(unavailable, unavailable);
    const before = proxy.requests.length;

    const result = await client.pets.listPets();

    expect(result.status).toBe(503);
    expect(proxy.requests.length - before).toBe(2);
  });
});

describe('paging', () => {
  const created: { id: number; status: string }[] = [];

  beforeAll(async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey });
    const statuses = ['available', 'pending', 'sold'] as const;
    for (let index = 0; index < 23; index += 1) {
      const status = statuses[index % 3] ?? 'available';
      const result = await client.pets.createPet({
        body: { name: `Paged ${index}`, categoryId: 3, status },
      });
      if (result.status !== 201) throw new Error(`create failed: ${result.status}`);
      created.push(result.body);
    }
  });

  test('the iterator returns every pet exactly once over several pages', async () => {
    const client = createClient({ baseUrl: proxy.baseUrl, apiKey });
    const before = proxy.requests.length;

    const ids: number[] = [];
    for await (const pet of client.pets.listAllPets({ limit: 4 })) ids.push(pet.id);

    const pageRequests = proxy.requests.length - before;
    expect(pageRequests).toBe(Math.ceil(ids.length / 4));
    expect(pageRequests).toBeGreaterThan(5);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const pet of created) expect(ids).toContain(pet.id);
  });

  test('the iterator keeps the filter on every page', async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey });
    const pending = [];
    for await (const pet of client.pets.listAllPets({ status: 'pending', limit: 2 })) {
      pending.push(pet);
    }
    expect(pending.every((pet) => pet.status === 'pending')).toBe(true);
    const expected = created.filter((pet) => pet.status === 'pending').map((pet) => pet.id);
    expect(pending.map((pet) => pet.id)).toEqual(expect.arrayContaining(expected));
  });

  test('one page at a time, with the cursor of the next page', async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey });
    const first = await client.pets.listPetsPage({ limit: 5 });
    expect(first.status).toBe(200);
    if (first.status !== 200) return;
    expect(first.body).toHaveLength(5);
    expect(first.nextCursor).toEqual(expect.any(String));

    const second = await client.pets.listPetsPage({ limit: 5, cursor: first.nextCursor });
    if (second.status !== 200) throw new Error(`page 2: ${second.status}`);
    expect(second.body[0]?.id).toBeGreaterThan(first.body[4]?.id ?? Number.POSITIVE_INFINITY);

    let last = second;
    while (last.nextCursor !== undefined) {
      const next = await client.pets.listPetsPage({ limit: 100, cursor: last.nextCursor });
      if (next.status !== 200) throw new Error(`page: ${next.status}`);
      last = next;
    }
    expect(last.nextCursor).toBeUndefined();
  });

  test('a page answered with an error stops the iterator with a typed ListPetsError', async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey: 'ask_not-a-key' });
    const iterate = async () => {
      for await (const _ of client.pets.listAllPets()) {
        /* never reached */
      }
    };
    const error = await iterate().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ListPetsError);
    expect((error as ListPetsError).response.status).toBe(401);
  });
});

describe('errors, rate-limit state and deprecation', () => {
  test('a 401 surfaces as a typed error result', async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey: 'ask_wrong' });
    const result = await client.pets.createPet({ body: { name: 'Nope', categoryId: 1 } });
    expect(result.status).toBe(401);
    if (result.status === 401) {
      expect(result.body).toMatchObject({ code: 'unauthorized', status: 401 });
    }
  });

  test('a 400 carries the validation details', async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey });
    const result = await client.pets.createPet({ body: { name: ' ', categoryId: 1 } });
    expect(result.status).toBe(400);
    if (result.status === 400) expect(result.body.code).toBe('validation_failed');
  });

  test('the last rate-limit state is readable', async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey });
    expect(client.rateLimit).toBeUndefined();
    await client.pets.listPets();
    const state = client.rateLimit;
    expect(state).toMatchObject({ limit: 100_000 });
    expect(state?.remaining).toBeLessThan(100_000);
    expect(state?.reset).toBeGreaterThan(Date.now() / 1000);
  });

  test('a base URL ending in /v1, as the interface description writes it, works too', async () => {
    const client = createClient({ baseUrl: `${server.baseUrl}/v1/`, apiKey });
    expect((await client.pets.listPets()).status).toBe(200);
  });

  test('getPet works and its deprecation is reported once per operation', async () => {
    const notices: DeprecationNotice[] = [];
    const client = createClient({
      baseUrl: server.baseUrl,
      apiKey,
      onDeprecation: (notice) => notices.push(notice),
    });
    const created = await client.pets.createPet({ body: { name: 'Old', categoryId: 2 } });
    if (created.status !== 201) throw new Error('create failed');

    const found = await client.pets.getPet({ params: { petId: created.body.id } });
    const missing = await client.pets.getPet({ params: { petId: 9_007_199_254_740_991 } });

    expect(found.status).toBe(200);
    expect(missing.status).toBe(404);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      operation: 'getPet',
      method: 'GET',
      deprecation: '@1735689600',
      deprecatedAt: new Date('2025-01-01T00:00:00Z'),
      sunsetAt: new Date('2030-12-05T00:00:00Z'),
      successor: '/v1/pets',
    });
  });
});
