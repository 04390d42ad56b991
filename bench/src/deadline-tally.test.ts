import { describe, expect, it } from 'vitest';
import {
  classifyAnswer,
  emptyTally,
  endedCount,
  percentile,
  recordEnd,
  summarizeTally,
} from './deadline-tally.js';

describe('classifyAnswer', () => {
  it('keeps an answer read before the deadline', () => {
    expect(classifyAnswer(200, 999, 1_000)).toEqual({
      kind: 'answer',
      status: 200,
      latencyMs: 999,
    });
  });

  it('counts an answer read at or after the deadline as past it, whatever its status', () => {
    expect(classifyAnswer(200, 1_000, 1_000)).toEqual({ kind: 'past-deadline' });
    expect(classifyAnswer(503, 1_450, 1_000)).toEqual({ kind: 'past-deadline' });
  });
});

describe('recordEnd', () => {
  it('counts 2xx with their latency, 503 as shed, other statuses apart', () => {
    const tally = emptyTally();
    recordEnd(tally, { kind: 'answer', status: 200, latencyMs: 3 });
    recordEnd(tally, { kind: 'answer', status: 204, latencyMs: 5 });
    recordEnd(tally, { kind: 'answer', status: 503, latencyMs: 1 });
    recordEnd(tally, { kind: 'answer', status: 429, latencyMs: 1 });
    recordEnd(tally, { kind: 'answer', status: 500, latencyMs: 1 });
    expect(tally).toMatchObject({ ok: 2, shed: 1, other: 2, okLatenciesMs: [3, 5] });
  });

  it("keeps apart the 2xx latencies of requests sent after the level's first second", () => {
    const tally = emptyTally();
    recordEnd(tally, { kind: 'answer', status: 200, latencyMs: 400 }, false);
    recordEnd(tally, { kind: 'answer', status: 200, latencyMs: 20 }, true);
    recordEnd(tally, { kind: 'answer', status: 503, latencyMs: 30 }, true);
    expect(tally).toMatchObject({ okLatenciesMs: [400, 20], steadyOkLatenciesMs: [20] });
  });

  it('counts requests given up at the deadline and failed ones, and every end once', () => {
    const tally = emptyTally();
    recordEnd(tally, { kind: 'past-deadline' });
    recordEnd(tally, { kind: 'past-deadline', connecting: true });
    recordEnd(tally, classifyAnswer(200, 1_200, 1_000));
    recordEnd(tally, { kind: 'error' });
    recordEnd(tally, { kind: 'answer', status: 200, latencyMs: 10 });
    expect(tally).toMatchObject({ ok: 1, pastDeadline: 3, pastDeadlineConnecting: 1, errors: 1 });
    expect(endedCount(tally)).toBe(5);
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBe(0);
  });
});

describe('summarizeTally', () => {
  it('gives rates over the measured seconds and percentiles of the 2xx only', () => {
    const tally = emptyTally();
    for (const latencyMs of [4, 1, 3, 2])
      recordEnd(tally, { kind: 'answer', status: 200, latencyMs }, latencyMs < 4);
    for (let i = 0; i < 6; i++) recordEnd(tally, { kind: 'answer', status: 503, latencyMs: 900 });
    recordEnd(tally, { kind: 'past-deadline', connecting: true });
    expect(summarizeTally(tally, 2)).toEqual({
      okPerSecond: 2,
      shedPerSecond: 3,
      other: 0,
      pastDeadline: 1,
      pastDeadlineConnecting: 1,
      errors: 0,
      p50Ms: 2,
      p99Ms: 4,
      steadyP99Ms: 3,
    });
  });

  it('gives no rate for no time', () => {
    expect(summarizeTally(emptyTally(), 0).okPerSecond).toBe(0);
  });
});
