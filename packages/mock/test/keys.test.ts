/**
 * Keys of a test's own, in-process: made on any plan or with numbers of their own, revoked, and
 * forgotten on reset, beside the demo keys, which stay what they are.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { createMock, manualClock } from '../src/index.js';

const mock = createMock({ clock: manualClock() });
beforeEach(() => mock.reset());

const list = (key: string) =>
  mock.fetch('http://mock.invalid/v1/pets?limit=1', {
    headers: { Authorization: `Bearer ${key}` },
  });

describe('mock.keys.create', () => {
  test("a key on a plan of the table is held to that plan's numbers", async () => {
    for (const [plan, limit] of [
      ['free', '60'],
      ['pro', '300'],
      ['business', '1000'],
    ] as const) {
      const answer = await list(mock.keys.create({ plan }));
      expect(answer.status, plan).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit'), plan).toBe(limit);
    }
  });

  test('an enterprise key is held to its own numbers: the sixth request of five a minute is 429', async () => {
    const key = mock.keys.create({ perMinute: 5, perDay: 100 });
    const statuses = [];
    for (let sent = 0; sent < 6; sent++) statuses.push((await list(key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const explicit = mock.keys.create({ plan: 'enterprise', perMinute: 7, perDay: 3 });
    expect((await list(explicit)).headers.get('x-ratelimit-limit')).toBe('3');
  });

  test('each key made is new, and counted apart from every other', async () => {
    const first = mock.keys.create({ plan: 'free' });
    const second = mock.keys.create({ plan: 'free' });
    expect(first).not.toBe(second);
    await list(first);
    expect((await list(second)).headers.get('x-ratelimit-remaining')).toBe('59');
  });

  test('numbers that are not whole, from 1 to 2^53 - 1, or numbers for a plan of the table, are refused', () => {
    for (const numbers of [
      { perMinute: 0, perDay: 1 },
      { perMinute: 1.5, perDay: 1 },
      { perMinute: 1, perDay: 2 ** 53 },
    ]) {
      expect(() => mock.keys.create(numbers), JSON.stringify(numbers)).toThrow(
        /must be a whole number from 1 to 9007199254740991/,
      );
    }
    expect(() => mock.keys.create({ plan: 'pro', perMinute: 5 } as never)).toThrow(RangeError);
    expect(() => mock.keys.create({ plan: 'gold' } as never)).toThrow(RangeError);
  });
});

describe('mock.keys.revoke', () => {
  test('a key made, or a demo key, is then answered 401 invalid_token; revoking twice is no error', async () => {
    const made = mock.keys.create({ plan: 'pro' });
    for (const key of [made, mock.keys.business]) {
      expect((await list(key)).status).toBe(200);
      mock.keys.revoke(key);
      mock.keys.revoke(key);
      const refused = await list(key);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        'Bearer realm="animal-store", error="invalid_token"',
      );
    }
  });

  test('a key the mock never had is an error', () => {
    expect(() => mock.keys.revoke(`ask_${'x'.repeat(49)}`)).toThrow(/not a key of this mock/);
  });
});

test('reset() forgets the keys made and the revocations; the demo keys are the same strings', async () => {
  const demo = { ...mock.keys };
  const made = mock.keys.create({ plan: 'pro' });
  mock.keys.revoke(mock.keys.free);
  mock.reset();
  expect((await list(made)).status).toBe(401);
  expect((await list(mock.keys.free)).status).toBe(200);
  expect((await list(mock.keys.revoked)).status).toBe(401);
  expect(mock.keys.free).toBe(demo.free);
  expect(createMock().keys.pro).toBe(demo.pro);
});
