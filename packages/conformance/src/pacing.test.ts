/**
 * The pacer's decisions, on answers written out here: what a deployment shows that this run's
 * tests against the real server and the mock do not (instances counting apart, a spent day).
 */
import { describe, expect, test } from 'vitest';
import type { Exchange, RequestSpec } from './http/exchange.js';
import { Pacer, type RateLimitWait } from './pacing.js';
import type { Rule } from './rule.js';

/** 12:00:00 UTC on a day of the test: a minute's window ends at +60, the day's hours later. */
const NOON = Date.UTC(2030, 0, 15, 12) / 1000;

const RULE: Rule = { name: 'a rule', check: async () => {} };
const SPENDING_RULE: Rule = { ...RULE, name: 'the 429', needs: 'spend-rate-limit' };
const KEYED: RequestSpec = { method: 'GET', target: '/v1/pets' };

interface Shown {
  readonly status?: number;
  readonly body?: string;
  readonly remaining: number;
  readonly reset: number;
  /** Unix seconds of the answer's `Date`. */
  readonly date: number;
}

const answer = ({ status = 200, body = '[]', remaining, reset, date }: Shown): Exchange => ({
  request: { method: 'GET', url: 'http://127.0.0.1/v1/pets', credential: 'key', headers: {} },
  response: {
    status,
    statusText: '',
    headers: {
      date: new Date(date * 1000).toUTCString(),
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(reset),
    },
    body,
  },
});

/** A pacer whose waits are recorded, not made; and a way to send it one answer. */
function pacer() {
  const waits: RateLimitWait[] = [];
  const sleeps: number[] = [];
  const paced = new Pacer({
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    onWait: (wait) => waits.push(wait),
  });
  const send = (shown: Shown, rule = RULE, request = KEYED) =>
    paced.send(rule, request, async () => answer(shown));
  return { send, waits, sleeps };
}

describe('the pacer', () => {
  test("waits, before the key's next request, from the answer's Date to a second past the reset", async () => {
    const { send, waits, sleeps } = pacer();
    await send({ remaining: 0, reset: NOON + 60, date: NOON + 20 });
    expect(waits).toEqual([]);
    await send({ remaining: 59, reset: NOON + 120, date: NOON + 61 });
    expect(waits).toEqual([{ budget: 'key', seconds: 41, rule: 'a rule' }]);
    expect(sleeps).toEqual([41_000]);
  });

  test('does not wait while requests remain, nor for the budget of another', async () => {
    const { send, waits } = pacer();
    await send({ remaining: 1, reset: NOON + 60, date: NOON });
    await send({ remaining: 0, reset: NOON + 60, date: NOON }, RULE, {
      ...KEYED,
      credential: 'none',
    });
    await send({ remaining: 0, reset: NOON + 60, date: NOON });
    expect(waits).toEqual([]);
  });

  test('does not hold back the rule that drives the key to its 429', async () => {
    const { send, waits } = pacer();
    await send({ remaining: 0, reset: NOON + 60, date: NOON }, SPENDING_RULE);
    await send({ remaining: 0, reset: NOON + 60, date: NOON }, SPENDING_RULE);
    expect(waits).toEqual([]);
  });

  test('does not wait for a spent day: its rule meets the 429 and says when to run again', async () => {
    const { send, waits } = pacer();
    await send({ remaining: 0, reset: NOON + 12 * 3600, date: NOON });
    await send({ remaining: 0, reset: NOON + 12 * 3600, date: NOON });
    expect(waits).toEqual([]);
  });

  test('does not wait for a window its latest answers show has ended', async () => {
    const { send, waits } = pacer();
    await send({ remaining: 0, reset: NOON + 60, date: NOON });
    await send({ remaining: 10, reset: NOON + 60, date: NOON + 70 }, RULE, {
      ...KEYED,
      credential: 'none',
    });
    await send({ remaining: 59, reset: NOON + 120, date: NOON + 70 });
    expect(waits).toEqual([]);
  });

  test('holds to the lowest standing of a window: instances that count apart, the first to run out refuses', async () => {
    const { send, waits } = pacer();
    await send({ remaining: 0, reset: NOON + 60, date: NOON + 30 });
    await send({ remaining: 0, reset: NOON + 60, date: NOON + 30 });
    expect(waits).toHaveLength(1);
    const other = pacer();
    await other.send({ remaining: 0, reset: NOON + 60, date: NOON + 30 }, SPENDING_RULE);
    await other.send({ remaining: 25, reset: NOON + 60, date: NOON + 30 }, SPENDING_RULE);
    await other.send({ remaining: 24, reset: NOON + 60, date: NOON + 30 });
    expect(other.waits).toEqual([{ budget: 'key', seconds: 31, rule: 'a rule' }]);
  });

  test("a key's request refused before the rate limit, which may show the IP's standing, spends at most itself of the key's", async () => {
    const headersTooLarge = (remaining: number): Shown => ({
      status: 431,
      body: JSON.stringify({ status: 431, code: 'headers_too_large', message: 'Too large.' }),
      remaining,
      reset: NOON + 60,
      date: NOON,
    });
    // The IP's spent minute, shown on an uncounted refusal: the key's is not spent with it.
    const ips = pacer();
    await ips.send({ remaining: 30, reset: NOON + 60, date: NOON });
    await ips.send(headersTooLarge(0));
    await ips.send({ remaining: 29, reset: NOON + 60, date: NOON });
    // The IP's standing, where the key had one request left: it still has.
    await ips.send({ remaining: 1, reset: NOON + 60, date: NOON });
    await ips.send(headersTooLarge(40));
    await ips.send({ remaining: 0, reset: NOON + 60, date: NOON });
    expect(ips.waits).toEqual([]);
    // The key's own, counted (a refusal after the rate limit): its last request spent.
    const keys = pacer();
    await keys.send({ remaining: 1, reset: NOON + 60, date: NOON });
    await keys.send(headersTooLarge(0));
    await keys.send({ remaining: 59, reset: NOON + 120, date: NOON + 61 });
    expect(keys.waits).toEqual([{ budget: 'key', seconds: 61, rule: 'a rule' }]);
  });
});
