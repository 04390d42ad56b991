import { describe, expect, it } from 'vitest';
import { pauseBeforeNext, retryAfterMs } from './client-behaviour.js';

describe('retryAfterMs', () => {
  it('reads delay-seconds', () => {
    expect(retryAfterMs('1')).toBe(1_000);
    expect(retryAfterMs(' 3 ')).toBe(3_000);
  });

  it('reads nothing else', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('-1')).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('pauseBeforeNext', () => {
  it('never pauses a naive client', () => {
    expect(pauseBeforeNext('naive', 503, '1', () => 0.5)).toBe(0);
  });

  it('pauses a polite client only after a 503', () => {
    expect(pauseBeforeNext('polite', 200, undefined, () => 0.5)).toBe(0);
    expect(pauseBeforeNext('polite', 429, '1', () => 0.5)).toBe(0);
    expect(pauseBeforeNext('polite', undefined, undefined, () => 0.5)).toBe(0);
  });

  it("waits a 503's Retry-After and a random part of it again, as the client does", () => {
    expect(pauseBeforeNext('polite', 503, '1', () => 0)).toBe(1_000);
    expect(pauseBeforeNext('polite', 503, '1', () => 0.5)).toBe(1_500);
    expect(pauseBeforeNext('polite', 503, '2', () => 0.999)).toBe(3_998);
  });

  it('backs off within the first backoff ceiling for a 503 without a Retry-After', () => {
    expect(pauseBeforeNext('polite', 503, undefined, () => 0.5)).toBe(125);
  });
});
