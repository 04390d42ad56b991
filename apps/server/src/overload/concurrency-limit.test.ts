import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from './concurrency-limit.js';

const settings = { targetLatencyMs: 25, initial: 100, min: 10, max: 1_000, windowMs: 100 };

/**
 * One window of `latencyMs` samples, ended by a sample after it; `reached` when requests found
 * the limit reached meanwhile, with `inFlight` requests in the server (else a light 10). Returns
 * the limit after the window.
 */
function window(
  limit: ConcurrencyLimit,
  clock: { ms: number },
  latencyMs: number,
  reached: boolean,
  inFlight = reached ? limit.value : 10,
) {
  for (let i = 0; i < 20; i += 1) {
    if (reached) limit.reached();
    limit.sample(latencyMs, clock.ms, inFlight);
    clock.ms += 5;
  }
  limit.sample(latencyMs, clock.ms, inFlight);
  return limit.value;
}

describe('the concurrency limit', () => {
  it('does not move under normal load, whatever the latency: it learns its baseline from it', () => {
    const limit = new ConcurrencyLimit(settings);
    const clock = { ms: 0 };
    for (const latency of [2, 3, 40, 5]) expect(window(limit, clock, latency, false)).toBe(100);
    // Twice the lowest 90th percentile of a normal window, or the target if that is higher.
    expect(limit.targetLatencyMs).toBe(25);
  });

  it('shrinks by how far latency overshot while requests find it reached, by half at most', () => {
    const limit = new ConcurrencyLimit(settings);
    const clock = { ms: 0 };
    expect(window(limit, clock, 50, true)).toBe(50);
    expect(window(limit, clock, 30, true)).toBe(41);
    expect(window(limit, clock, 1_000, true)).toBe(20);
    for (let i = 0; i < 10; i += 1) window(limit, clock, 1_000, true);
    expect(limit.value).toBe(10);
  });

  it('grows while requests find it reached and latency stays within target, up to its most', () => {
    const limit = new ConcurrencyLimit(settings);
    const clock = { ms: 0 };
    expect(window(limit, clock, 10, true)).toBe(110);
    for (let i = 0; i < 500; i += 1) window(limit, clock, 10, true);
    expect(limit.value).toBe(1_000);
  });

  it("protects twice the lowest normal latency when that is above the target: a slower deployment's normal", () => {
    const limit = new ConcurrencyLimit(settings);
    const clock = { ms: 0 };
    window(limit, clock, 40, false);
    expect(limit.targetLatencyMs).toBe(80);
    expect(window(limit, clock, 60, true)).toBeGreaterThan(100);
    expect(window(limit, clock, 160, true)).toBeLessThan(100);
  });

  it('learns no baseline from a crowd that happened not to find it reached: its latency is queueing', () => {
    const limit = new ConcurrencyLimit(settings);
    const clock = { ms: 0 };
    window(limit, clock, 300, false, 60);
    expect(limit.targetLatencyMs).toBe(25);
    expect(window(limit, clock, 300, true)).toBe(50);
    window(limit, clock, 40, false, 25);
    expect(limit.targetLatencyMs).toBe(80);
  });

  it('forgets the normal latency of more than a minute ago', () => {
    const limit = new ConcurrencyLimit(settings);
    const clock = { ms: 0 };
    window(limit, clock, 40, false);
    for (let i = 0; i < 600; i += 1) window(limit, clock, 1, false);
    expect(limit.targetLatencyMs).toBe(25);
  });
});
