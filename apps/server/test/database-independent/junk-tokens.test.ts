/**
 * Junk is cheap: a bearer token that cannot be one of our keys is refused without touching the
 * database, counted by the statements the server's database client runs.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/keys/api-key-store.js';
import { TestClock } from '../../testing/test-clock.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
let statements = 0;

/**
 * A clock stopped mid-minute: on the wall clock, a minute that ended between the first burst's
 * 401s and its ban would reset the IP's counters and let a second 60 through.
 */
const MID_MINUTE = Date.UTC(2026, 0, 15, 12, 0, 30);

beforeAll(async () => {
  api = await startTestServer({
    onQuery: () => (statements += 1),
    clock: new TestClock(MID_MINUTE),
  });
});
afterAll(() => api.close());

/** How many statements `work` made the server run. */
async function statementsDuring(work: () => Promise<unknown>): Promise<number> {
  const before = statements;
  await work();
  return statements - before;
}

describe('Junk bearer tokens', () => {
  it('3,000 tokens that cannot be our keys cost no database statement: refused, then limited and banned by IP', async () => {
    const statuses: number[] = [];
    const cost = await statementsDuring(async () => {
      for (let batch = 0; batch < 30; batch += 1) {
        const answers = await Promise.all(
          Array.from({ length: 100 }, (_, i) => {
            // Random text, and a well-shaped key with a wrong checksum: neither can be a key.
            const token =
              i % 2 === 0
                ? randomBytes(24).toString('hex')
                : `ask_${randomBytes(32).toString('base64url')}AAAAAA`;
            return api.request('/v1/pets', { apiKey: token });
          }),
        );
        statuses.push(...answers.map((res) => res.status));
      }
    });
    expect(cost).toBe(0);
    expect(statuses.slice(0, 60)).toEqual(Array(60).fill(401));
    expect(new Set(statuses.slice(60))).toEqual(new Set([429]));
  });

  it('a genuine key costs one lookup in a while, however often it is used, and an altered one none', async () => {
    // The first list also loads the cursor signing key, once per process: not counted here.
    expect((await api.request('/v1/pets')).status).toBe(200);
    const key = await api.createKey({ label: 'genuine', plan: 'pro' });
    expect(key).toMatch(/^ask_[A-Za-z0-9_-]{49}$/);
    const cost = await statementsDuring(async () => {
      for (let i = 0; i < 20; i += 1) {
        expect((await api.request('/v1/pets', { apiKey: key })).status).toBe(200);
      }
    });
    // One key lookup, and one list per request.
    expect(cost).toBe(1 + 20);

    const altered = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    const alteredCost = await statementsDuring(async () => {
      // Refused: 401, or 429 since this IP's junk above earned it a ban.
      expect([401, 429]).toContain((await api.request('/v1/pets', { apiKey: altered })).status);
    });
    expect(alteredCost).toBe(0);
  });

  it('keys issued before the checksum keep working', async () => {
    const legacy = `ask_${randomBytes(32).toString('base64url')}`;
    await api.db.apiKey.create({
      data: {
        id: 'key_legacy',
        label: 'issued before the checksum',
        plan: 'pro',
        perMinute: 300,
        perDay: 10_000,
        secretHash: hashSecret(legacy),
      },
    });
    expect((await api.request('/v1/pets', { apiKey: legacy })).status).toBe(200);
  });
});
