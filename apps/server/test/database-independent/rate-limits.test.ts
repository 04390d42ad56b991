import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/keys/api-key-store.js';
import { PLAN_QUOTAS } from '../../src/limits/plans.js';
import { TestClock } from '../../testing/test-clock.js';
import { sendRaw } from '../support/raw-http.js';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.js';

/** 2026-03-10 12:00:00 UTC: minute and day windows are whole multiples of it. */
const NOON = Date.UTC(2026, 2, 10, 12, 0, 0);
const MINUTE = 60_000;
const DAY = 86_400_000;

let api: TestServer;
beforeEach(async () => {
  api = await startTestServer({ clock: new TestClock(NOON) });
});
afterEach(() => api.close());

function limits(res: TestResponse) {
  return {
    limit: Number(res.headers.get('x-ratelimit-limit')),
    remaining: Number(res.headers.get('x-ratelimit-remaining')),
    reset: Number(res.headers.get('x-ratelimit-reset')),
  };
}

async function spend(
  key: string | null,
  count: number,
  path = '/v1/pets',
): Promise<TestResponse[]> {
  const responses: TestResponse[] = [];
  for (let i = 0; i < count; i += 1) responses.push(await api.request(path, { apiKey: key }));
  return responses;
}

/** A document outside the operations: counted per client IP, with or without a key. */
const DOCUMENT = '/v1/openapi.json';

const endOfMinute = (ms: number) => (Math.floor(ms / MINUTE) + 1) * 60;
const endOfDay = (ms: number) => (Math.floor(ms / DAY) + 1) * 86_400;

describe('Rate limits', () => {
  it('the plan table matches the seed: Free 60/1,000, Pro 300/10,000, Business 1,000/100,000 per minute/day', async () => {
    for (const [plan, perMinute] of [
      ['free', 60],
      ['pro', 300],
      ['business', 1000],
    ] as const) {
      const key = await api.createKey({ label: plan, plan });
      const res = await api.request('/v1/pets', { apiKey: key });
      expect(limits(res)).toEqual({
        limit: perMinute,
        remaining: perMinute - 1,
        reset: endOfMinute(NOON),
      });
    }
    const enterprise = await api.createKey({
      label: 'e',
      plan: 'enterprise',
      quota: { perMinute: 7, perDay: 5000 },
    });
    expect(limits(await api.request('/v1/pets', { apiKey: enterprise })).limit).toBe(7);
  });

  it('a key on a table plan follows the plan table as it stands, whatever its row holds; an enterprise key keeps its own numbers', async () => {
    const pro = await api.createKey({ label: 'pro', plan: 'pro' });
    const earlierPro = await api.createKey({ label: 'earlier pro', plan: 'pro' });
    const enterprise = await api.createKey({
      label: 'e',
      plan: 'enterprise',
      quota: { perMinute: 7, perDay: 5000 },
    });
    const limitsInRow = (secret: string) =>
      api.db.apiKey.findUniqueOrThrow({
        where: { secretHash: hashSecret(secret) },
        select: { perMinute: true, perDay: true },
      });
    // The table's numbers are in the row too, for a server of the release before to read.
    expect(await limitsInRow(pro)).toEqual({ perMinute: 300n, perDay: 10_000n });
    expect(await limitsInRow(enterprise)).toEqual({ perMinute: 7n, perDay: 5000n });
    // A row whose numbers are not the table's (the table changed since the key was made).
    await api.db.apiKey.update({
      where: { secretHash: hashSecret(earlierPro) },
      data: { perMinute: 5, perDay: 50 },
      select: { id: true },
    });

    const { perMinute } = PLAN_QUOTAS.pro;
    for (const key of [pro, earlierPro]) {
      expect(limits(await api.request('/v1/pets', { apiKey: key }))).toEqual({
        limit: perMinute,
        remaining: perMinute - 1,
        reset: endOfMinute(NOON),
      });
    }
    expect(limits(await api.request('/v1/pets', { apiKey: enterprise }))).toEqual({
      limit: 7,
      remaining: 6,
      reset: endOfMinute(NOON),
    });
  });

  it('every response carries X-RateLimit-Limit, -Remaining and -Reset, errors and documents included', async () => {
    const responses = [
      await api.request('/v1/pets'),
      await api.request('/v1/pets?limit=0'),
      await api.request('/v1/pets', { apiKey: null }),
      await api.request('/v1/pets/999'),
      await api.request('/nowhere'),
      await api.request('/v1/pets', { method: 'PUT' }),
      await api.request('/healthz', { apiKey: null }),
      await api.request('/readyz', { apiKey: null }),
      await api.request('/v1/openapi.json', { apiKey: null }),
      await api.request('/docs', { apiKey: null }),
    ];
    for (const res of responses) {
      expect(res.headers.get('x-ratelimit-limit'), String(res.status)).toMatch(/^\d+$/);
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    }
  });

  it('a request over the limit gets 429 rate_limited with Retry-After and is not counted', async () => {
    const key = await api.createKey({ label: 'free', plan: 'free' });
    api.clock.set(NOON + 45_500);
    const allowed = await spend(key, 60);
    expect(allowed.every((res) => res.status === 200)).toBe(true);
    expect(limits(allowed[59] as TestResponse).remaining).toBe(0);

    const over = await api.request('/v1/pets', { apiKey: key });
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({ code: 'rate_limited', status: 429 });
    // 14.5 s to the next minute, rounded up to whole seconds.
    expect(over.headers.get('retry-after')).toBe('15');
    expect(limits(over)).toEqual({ limit: 60, remaining: 0, reset: endOfMinute(NOON) });

    api.clock.set(NOON + MINUTE);
    const next = await api.request('/v1/pets', { apiKey: key });
    expect(next.status).toBe(200);
    // Rejected requests were not counted: the day has used 61, not 62.
    expect(limits(next)).toEqual({ limit: 60, remaining: 59, reset: endOfMinute(NOON + MINUTE) });
  });

  it('two fixed windows: the UTC calendar minute and the UTC calendar day', async () => {
    const key = await api.createKey({
      label: 'e',
      plan: 'enterprise',
      quota: { perMinute: 100, perDay: 3 },
    });
    api.clock.set(NOON + 59_999);
    expect((await spend(key, 3)).every((res) => res.status === 200)).toBe(true);
    api.clock.set(NOON + MINUTE);
    const blocked = await api.request('/v1/pets', { apiKey: key });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBe(
      endOfDay(NOON) - (NOON + MINUTE) / 1000,
    );
    api.clock.set(Date.UTC(2026, 2, 11, 0, 0, 0));
    expect((await api.request('/v1/pets', { apiKey: key })).status).toBe(200);
  });

  it('headers describe the window with fewer requests remaining, the minute on a tie', async () => {
    const dayBound = await api.createKey({
      label: 'd',
      plan: 'enterprise',
      quota: { perMinute: 50, perDay: 10 },
    });
    expect(limits(await api.request('/v1/pets', { apiKey: dayBound }))).toEqual({
      limit: 10,
      remaining: 9,
      reset: endOfDay(NOON),
    });
    const tie = await api.createKey({
      label: 't',
      plan: 'enterprise',
      quota: { perMinute: 10, perDay: 10 },
    });
    expect(limits(await api.request('/v1/pets', { apiKey: tie }))).toEqual({
      limit: 10,
      remaining: 9,
      reset: endOfMinute(NOON),
    });
  });

  it('an exhausted window binds, the one that resets last when both are', async () => {
    const key = await api.createKey({
      label: 'e',
      plan: 'enterprise',
      quota: { perMinute: 2, perDay: 1000 },
    });
    await spend(key, 2);
    const res = await api.request('/v1/pets', { apiKey: key });
    expect(limits(res)).toEqual({ limit: 2, remaining: 0, reset: endOfMinute(NOON) });

    const both = await api.createKey({
      label: 'b',
      plan: 'enterprise',
      quota: { perMinute: 2, perDay: 2 },
    });
    await spend(both, 2);
    const exhausted = await api.request('/v1/pets', { apiKey: both });
    expect(limits(exhausted)).toEqual({ limit: 2, remaining: 0, reset: endOfDay(NOON) });
  });

  it('more than max(10, per-minute) rejections in one minute bans for 15 minutes; the crossing one is still rate_limited', async () => {
    const key = await api.createKey({
      label: 'e',
      plan: 'enterprise',
      quota: { perMinute: 3, perDay: 1000 },
    });
    await spend(key, 3);
    const rejections = await spend(key, 11);
    for (const res of rejections) {
      expect(res.status).toBe(429);
      expect((await res.json()).code).toBe('rate_limited');
    }
    api.clock.advance(1_000);
    const banned = await api.request('/v1/pets', { apiKey: key });
    expect(banned.status).toBe(429);
    expect(await banned.json()).toMatchObject({ code: 'temporarily_banned', status: 429 });
    expect(banned.headers.get('retry-after')).toBe(String(15 * 60 - 1));
    expect(limits(banned)).toEqual({ limit: 3, remaining: 0, reset: endOfMinute(NOON) });

    // In the next minute the headers describe its window, still unused; the ban holds.
    api.clock.set(NOON + MINUTE);
    const stillBanned = await api.request('/v1/pets', { apiKey: key });
    expect((await stillBanned.json()).code).toBe('temporarily_banned');
    expect(limits(stillBanned)).toEqual({
      limit: 3,
      remaining: 3,
      reset: endOfMinute(NOON + MINUTE),
    });
    expect(stillBanned.headers.get('retry-after')).toBe(String(14 * 60));

    api.clock.set(NOON + 15 * MINUTE - 1);
    expect((await (await api.request('/v1/pets', { apiKey: key })).json()).code).toBe(
      'temporarily_banned',
    );
    api.clock.set(NOON + 15 * MINUTE);
    expect((await api.request('/v1/pets', { apiKey: key })).status).toBe(200);
  });

  it('the ban threshold is the per-minute limit when that is above 10', async () => {
    const key = await api.createKey({
      label: 'e',
      plan: 'enterprise',
      quota: { perMinute: 12, perDay: 1000 },
    });
    await spend(key, 12);
    const rejections = await spend(key, 13);
    expect(rejections.map((res) => res.status)).toEqual(Array(13).fill(429));
    const codes = await Promise.all(rejections.map(async (res) => (await res.json()).code));
    expect(new Set(codes)).toEqual(new Set(['rate_limited']));
    expect((await (await api.request('/v1/pets', { apiKey: key })).json()).code).toBe(
      'temporarily_banned',
    );
  });

  it('requests without a valid key are counted per client IP against the Free plan', async () => {
    const responses = await spend(null, 60, DOCUMENT);
    expect(responses.every((res) => res.status === 200)).toBe(true);
    expect(limits(responses[0] as TestResponse)).toEqual({
      limit: 60,
      remaining: 59,
      reset: endOfMinute(NOON),
    });
    const over = await api.request('/v1/pets', { apiKey: 'ask_wrong' });
    expect(over.status).toBe(429);
    // Rate limiting comes first: even an unknown route is 429 now.
    expect((await api.request('/nowhere', { apiKey: null })).status).toBe(429);
  });

  it("an IP's ban does not block requests that carry a valid key", async () => {
    await spend(null, 60, DOCUMENT);
    // The Free plan's threshold is max(10, 60): the 61st rejection in the minute bans.
    await spend(null, 61, DOCUMENT);
    const banned = await api.request(DOCUMENT, { apiKey: null });
    expect((await banned.json()).code).toBe('temporarily_banned');
    expect((await api.request('/v1/pets')).status).toBe(200);
  });

  it('Remaining never goes below 0', async () => {
    const key = await api.createKey({
      label: 'e',
      plan: 'enterprise',
      quota: { perMinute: 1, perDay: 1000 },
    });
    for (const res of await spend(key, 5)) expect(limits(res).remaining).toBeGreaterThanOrEqual(0);
  });

  it('requests the HTTP parser rejects, or reads in a version other than HTTP/1.x, carry the X-RateLimit-* headers of the client IP', async () => {
    await spend(null, 5, DOCUMENT);
    const refused = [
      'BROKEN\r\n\r\n',
      'GET /v1/openapi.json HTTP/2.0\r\nHost: x\r\n\r\n',
      'GET /v1/openapi.json HTTP/0.9\r\nHost: x\r\n\r\n',
    ];
    for (const request of refused) {
      const res = await sendRaw(api.port, request);
      expect(res.status).toBe(400);
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      // The refused request itself is not counted.
      expect(res.headers['x-ratelimit-remaining']).toBe('55');
    }
  });
});

describe('Rate limits and the health probes', () => {
  const PROBES = ['/healthz', '/readyz'];

  it('the probes are never counted: they carry the IP headers as they stand', async () => {
    await spend(null, 30, DOCUMENT);
    for (let round = 0; round < 50; round += 1) {
      for (const path of PROBES) {
        const res = await api.request(path, { apiKey: null });
        expect(res.status, path).toBe(200);
        expect(limits(res), path).toEqual({ limit: 60, remaining: 30, reset: endOfMinute(NOON) });
      }
    }
    const next = await api.request(DOCUMENT, { apiKey: null });
    expect(limits(next).remaining).toBe(29);
  });

  it('the probes are never refused: not over the minute, the day, nor in a ban', async () => {
    await spend(null, 60, DOCUMENT);
    expect((await api.request(DOCUMENT, { apiKey: null })).status).toBe(429);
    for (const path of PROBES) {
      const res = await api.request(path, { apiKey: null });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('retry-after'), path).toBeNull();
      expect(limits(res).remaining, path).toBe(0);
    }
    // Banned: the Free plan's threshold is max(10, 60) rejections in one minute.
    await spend(null, 61, DOCUMENT);
    expect((await (await api.request(DOCUMENT, { apiKey: null })).json()).code).toBe(
      'temporarily_banned',
    );
    for (const path of PROBES) expect((await api.request(path, { apiKey: null })).status).toBe(200);
    // The day: 1,000 requests over 17 minutes, then probes from the exhausted IP.
    for (let minute = 20; minute < 40; minute += 1) {
      api.clock.set(NOON + minute * MINUTE);
      await spend(null, 60, DOCUMENT);
    }
    const dayOver = await api.request(DOCUMENT, { apiKey: null });
    expect(dayOver.status).toBe(429);
    expect(limits(dayOver)).toEqual({ limit: 1000, remaining: 0, reset: endOfDay(NOON) });
    for (const path of PROBES) {
      const res = await api.request(path, { apiKey: null });
      expect(res.status, path).toBe(200);
      expect(limits(res), path).toEqual({ limit: 1000, remaining: 0, reset: endOfDay(NOON) });
    }
  });

  it('with a key, a probe is still read per client IP and never counted against the key', async () => {
    const key = await api.createKey({ label: 'free', plan: 'free' });
    const probe = await api.request('/healthz', { apiKey: key });
    expect(limits(probe).remaining).toBe(60);
    expect(limits(await api.request('/v1/pets', { apiKey: key })).remaining).toBe(59);
  });
});

describe('Rate limits behind a proxy', () => {
  it('X-Forwarded-For is ignored unless TRUST_PROXY says otherwise', async () => {
    const spoofed = await spend(null, 3, DOCUMENT);
    const res = await api.request(DOCUMENT, {
      apiKey: null,
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(limits(res).remaining).toBe(limits(spoofed[2] as TestResponse).remaining - 1);
  });

  it('with TRUST_PROXY, each forwarded client IP has its own counters', async () => {
    const proxied = await startTestServer({ clock: api.clock, trustProxy: 1 });
    try {
      const a = await proxied.request(DOCUMENT, {
        apiKey: null,
        headers: { 'x-forwarded-for': '203.0.113.1' },
      });
      const b = await proxied.request(DOCUMENT, {
        apiKey: null,
        headers: { 'x-forwarded-for': '203.0.113.2' },
      });
      expect(limits(a).remaining).toBe(59);
      expect(limits(b).remaining).toBe(59);
    } finally {
      await proxied.close();
    }
  });
});

describe('Rate limits per client network', () => {
  it('IPv6 clients of one /64 share the Free quota; another /64, or IPv4-mapped addresses, are clients of their own', async () => {
    const proxied = await startTestServer({ clock: api.clock, trustProxy: 1 });
    try {
      const from = (address: string) =>
        proxied.request('/v1/pets', { apiKey: null, headers: { 'x-forwarded-for': address } });
      const statuses: number[] = [];
      for (let host = 1; host <= 80; host += 1) {
        statuses.push((await from(`2001:db8:1:2::${host.toString(16)}`)).status);
      }
      expect(statuses.slice(0, 60)).toEqual(Array(60).fill(401));
      expect(new Set(statuses.slice(60))).toEqual(new Set([429]));

      expect((await from('2001:db8:1:3::1')).status).toBe(401);
      const mapped = await from('::ffff:198.51.100.7');
      expect(limits(mapped).remaining).toBe(59);
      expect(limits(await from('198.51.100.7')).remaining).toBe(58);
      expect(limits(await from('::ffff:198.51.100.8')).remaining).toBe(59);
    } finally {
      await proxied.close();
    }
  });
});

describe('Rate limits and requests the HTTP parser refuses', () => {
  it('they are answered 400 and neither counted nor held against a ban', async () => {
    await spend(null, 60, DOCUMENT);
    for (let i = 0; i < 20; i += 1) {
      const res = await sendRaw(api.port, 'BROKEN\r\n\r\n');
      expect(res.status).toBe(400);
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
    }
    const rejections = await spend(null, 61, DOCUMENT);
    const codes = await Promise.all(rejections.map(async (res) => (await res.json()).code));
    expect(codes.every((code) => code === 'rate_limited')).toBe(true);
  });
});
