/**
 * What a program built on @animal-store/client meets against the mock on a real port: paging,
 * a 429 left behind by advancing the mock's clock, and the faults the client must ride out.
 */
import { createClient, type RetryOptions } from '@animal-store/client';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { DEMO_PETS, type MockServer, manualClock, startMockServer } from '../src/index.js';

let server: MockServer;

beforeAll(async () => {
  // Time that stands still: a window never rolls over in the middle of a test.
  server = await startMockServer({ port: 0, clock: manualClock() });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => server.mock.reset());

/** The client's waits, recorded instead of waited: nothing here depends on the wall clock. */
function recordedWaits(): { waits: number[]; retry: RetryOptions } {
  const waits: number[] = [];
  return {
    waits,
    retry: {
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
  };
}

const clientWith = (key: string, retry: RetryOptions | false = false) =>
  createClient({ baseUrl: `${server.url}/v1`, apiKey: key, retry, onDeprecation: () => {} });

describe('paging', () => {
  test('listAllPets follows rel="next" over the seeded pets, each once, in id order', async () => {
    const client = clientWith(server.mock.keys.pro);
    const pets = [];
    for await (const pet of client.pets.listAllPets({ limit: 2 })) pets.push(pet);
    expect(pets.map(({ name, categoryId, status }) => ({ name, categoryId, status }))).toEqual(
      DEMO_PETS,
    );
    expect(pets.map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test('a created pet is found by getPet and, with its status, by the filter', async () => {
    const client = clientWith(server.mock.keys.pro);
    const created = await client.pets.createPet({
      body: { name: 'Rex', categoryId: 7, status: 'sold' },
    });
    expect(created.status).toBe(201);
    if (created.status !== 201) return;
    expect(created.body.id).toBe(DEMO_PETS.length + 1);
    const found = await client.pets.getPet({ params: { petId: created.body.id } });
    expect(found.body).toEqual(created.body);
    const sold = [];
    for await (const pet of client.pets.listAllPets({ status: 'sold' })) sold.push(pet.name);
    expect(sold).toEqual(['Sir Hopsalot', 'Rex']);
  });
});

describe('rate limits', () => {
  test('over the free plan, 429 rate_limited; a minute later on the mock clock, served again', async () => {
    const client = clientWith(server.mock.keys.free);
    for (let sent = 0; sent < 60; sent++) {
      expect((await client.pets.listPets({ query: { limit: 1 } })).status).toBe(200);
    }
    const refused = await client.pets.listPets({ query: { limit: 1 } });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(client.rateLimit).toMatchObject({ limit: 60, remaining: 0 });

    server.mock.clock.advance(60_000);
    expect((await client.pets.listPets({ query: { limit: 1 } })).status).toBe(200);
    expect(client.rateLimit).toMatchObject({ limit: 60, remaining: 59 });
  });

  test("the client waits out Retry-After on the mock's clock and is served", async () => {
    const client = createClient({
      baseUrl: server.url,
      apiKey: server.mock.keys.free,
      retry: { sleep: async (ms) => server.mock.clock.advance(ms) },
    });
    for (let sent = 0; sent < 60; sent++) await client.pets.listPets({ query: { limit: 1 } });
    expect((await client.pets.listPets({ query: { limit: 1 } })).status).toBe(200);
  });

  test('past the ban threshold, 429 temporarily_banned for 15 minutes of the mock clock', async () => {
    const client = clientWith(server.mock.keys.free);
    for (let sent = 0; sent < 60 + 61; sent++) await client.pets.listPets({ query: { limit: 1 } });
    const banned = await client.pets.listPets({ query: { limit: 1 } });
    expect(banned.body).toMatchObject({ code: 'temporarily_banned', status: 429 });
    expect(Number(banned.headers.get('retry-after'))).toBe(15 * 60);
    server.mock.clock.advance(15 * 60_000);
    expect((await client.pets.listPets({ query: { limit: 1 } })).status).toBe(200);
  });
});

describe('misbehaving', () => {
  test('a 503 with Retry-After: the client waits it (and up to as much again), retries, and is served', async () => {
    server.mock.misbehave({ times: 1, kind: 'unavailable', retryAfterSeconds: 2 });
    const { waits, retry } = recordedWaits();
    const listed = await clientWith(server.mock.keys.pro, retry).pets.listPets();
    expect(listed.status).toBe(200);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(2000);
    expect(waits[0]).toBeLessThanOrEqual(4000);
  });

  test('without retries the 503 is the answer: service_unavailable, with Retry-After', async () => {
    server.mock.misbehave({ times: 1, kind: 'unavailable' });
    const listed = await clientWith(server.mock.keys.pro).pets.listPets();
    expect(listed.status).toBe(503);
    expect(listed.body).toMatchObject({ code: 'service_unavailable' });
    expect(listed.headers.get('retry-after')).toBe('1');
  });

  test('a dropped connection is a network error; the client retries it and is served', async () => {
    server.mock.misbehave({ times: 2, kind: 'drop' });
    await expect(clientWith(server.mock.keys.pro).pets.listPets()).rejects.toThrow();
    const { waits, retry } = recordedWaits();
    expect((await clientWith(server.mock.keys.pro, retry).pets.listPets()).status).toBe(200);
    expect(waits).toHaveLength(1);
  });

  test('a slow answer is still the answer', async () => {
    server.mock.misbehave({ times: 1, kind: 'slow', delayMs: 20 });
    expect((await clientWith(server.mock.keys.pro).pets.listPets()).status).toBe(200);
  });
});
