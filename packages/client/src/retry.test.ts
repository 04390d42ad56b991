import { describe, expect, test } from 'vitest';
import {
  backoffDelay,
  createRetryBudget,
  nextRetryDelay,
  parseRetryAfter,
  resolveRetryPolicy,
  sleep,
} from './retry.js';

const policy = resolveRetryPolicy({ random: () => 0.999, baseDelayMs: 100, maxDelayMs: 1000 });
const response = (status: number, retryAfterMs?: number) =>
  ({ kind: 'response', status, retryAfterMs }) as const;

describe('parseRetryAfter', () => {
  test('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', 0)).toBe(3000);
    expect(parseRetryAfter(' 0 ', 0)).toBe(0);
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Tue, 01 Jan 2029 00:00:05 GMT', now)).toBe(0);
  });

  test('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(null, 0)).toBeUndefined();
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter('-1', 0)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  test('full jitter below a ceiling that doubles up to maxDelayMs', () => {
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(policy, retry))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    const low = resolveRetryPolicy({ random: () => 0 });
    expect(backoffDelay(low, 3)).toBe(0);
  });
});

describe('nextRetryDelay', () => {
  test('429 waits Retry-After exactly, or backs off without one', () => {
    expect(nextRetryDelay(policy, 1, 0, response(429, 2000))).toBe(2000);
    expect(nextRetryDelay(policy, 2, 0, response(429))).toBe(199);
  });

  test('a Retry-After above the ceiling is not waited for (a ban, say)', () => {
    expect(nextRetryDelay(policy, 1, 0, response(429, 900_000))).toBeUndefined();
    const patient = resolveRetryPolicy({ maxRetryAfterMs: 900_000, maxElapsedMs: 1_000_000 });
    expect(nextRetryDelay(patient, 1, 0, response(429, 900_000))).toBe(900_000);
  });

  test('network errors and 502/503/504 back off; with a Retry-After, they wait it and a random part of it again', () => {
    expect(nextRetryDelay(policy, 1, 0, { kind: 'network-error' })).toBe(99);
    for (const status of [502, 503, 504]) {
      expect(nextRetryDelay(policy, 1, 0, response(status))).toBe(99);
    }
    expect(nextRetryDelay(policy, 1, 0, response(503, 5000))).toBe(9995);
    const low = resolveRetryPolicy({ random: () => 0 });
    expect(nextRetryDelay(low, 1, 0, response(503, 1000))).toBe(1000);
    // Clients told the same Retry-After come back spread over a second, not all at once.
    const spread = [0, 0.25, 0.5, 0.75].map((share) =>
      nextRetryDelay(resolveRetryPolicy({ random: () => share }), 1, 0, response(503, 1000)),
    );
    expect(spread).toEqual([1000, 1250, 1500, 1750]);
  });

  test('other statuses are final', () => {
    for (const status of [200, 201, 400, 401, 404, 409, 500]) {
      expect(nextRetryDelay(policy, 1, 0, response(status))).toBeUndefined();
    }
  });

  test('attempts and total time are bounded', () => {
    expect(nextRetryDelay(policy, 4, 0, response(503))).toBe(799);
    expect(nextRetryDelay(policy, 5, 0, response(503))).toBeUndefined();
    expect(nextRetryDelay(policy, 1, 89_000, response(429, 1000))).toBe(1000);
    expect(nextRetryDelay(policy, 1, 89_001, response(429, 1000))).toBeUndefined();
  });

  test('retry: false means one attempt', () => {
    const off = resolveRetryPolicy(false);
    expect(off.maxAttempts).toBe(1);
    expect(nextRetryDelay(off, 1, 0, { kind: 'network-error' })).toBeUndefined();
  });
});

describe('the retry budget', () => {
  const failure = response(503, 1000);
  const success = response(200);

  test('allows retries until half its tokens are spent on failures, then none', () => {
    const budget = createRetryBudget({ maxTokens: 10, tokenRatio: 0.1 });
    const allowed: boolean[] = [];
    for (let i = 0; i < 7; i += 1) {
      budget.record(failure);
      allowed.push(budget.allowsRetry());
    }
    expect(allowed).toEqual([true, true, true, true, false, false, false]);
  });

  test('earns tokens back from answers that are no failure, a tenth of one each', () => {
    const budget = createRetryBudget({ maxTokens: 10, tokenRatio: 0.1 });
    for (let i = 0; i < 5; i += 1) budget.record(failure);
    expect(budget.allowsRetry()).toBe(false);
    for (let i = 0; i < 10; i += 1) budget.record(success);
    expect(budget.allowsRetry()).toBe(true);
    budget.record(response(404));
    budget.record({ kind: 'network-error' });
    expect(budget.allowsRetry()).toBe(true);
  });

  test('retryBudget: false allows every retry', () => {
    const unlimited = createRetryBudget(false);
    for (let i = 0; i < 100; i += 1) unlimited.record(failure);
    expect(unlimited.allowsRetry()).toBe(true);
  });
});

describe('sleep', () => {
  test('rejects with the reason when its signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expect(sleep(1, AbortSignal.abort(new Error('early')))).rejects.toThrow('early');
  });
});
