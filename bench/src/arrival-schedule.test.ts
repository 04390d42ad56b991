import { describe, expect, it } from 'vitest';
import { admitArrivals, arrivalsDueBy, arrivalTimeMs } from './arrival-schedule.js';

describe('arrival schedule', () => {
  it('spaces arrivals evenly: the n-th at n / rate seconds', () => {
    expect(arrivalTimeMs(0, 4)).toBe(0);
    expect(arrivalTimeMs(1, 4)).toBe(250);
    expect(arrivalTimeMs(8, 4)).toBe(2_000);
  });

  it('counts the arrivals due by a moment, the one at that moment included', () => {
    expect(arrivalsDueBy(0, 4)).toBe(1);
    expect(arrivalsDueBy(249, 4)).toBe(1);
    expect(arrivalsDueBy(250, 4)).toBe(2);
    expect(arrivalsDueBy(1_000, 10_000)).toBe(10_001);
  });

  it('has nothing due before the start or at no rate', () => {
    expect(arrivalsDueBy(-1, 4)).toBe(0);
    expect(arrivalsDueBy(1_000, 0)).toBe(0);
  });

  it('agrees with the arrival times: every arrival counted as due is at or before the moment', () => {
    for (const elapsed of [0, 1, 99.5, 333, 1_000, 7_777]) {
      const due = arrivalsDueBy(elapsed, 3_000);
      expect(arrivalTimeMs(due - 1, 3_000)).toBeLessThanOrEqual(elapsed);
      expect(arrivalTimeMs(due, 3_000)).toBeGreaterThan(elapsed);
    }
  });
});

describe('admitArrivals', () => {
  it('sends every due arrival while under the cap', () => {
    expect(admitArrivals(5, 10, 100)).toEqual({ send: 5, skipped: 0 });
  });

  it('sends what fits under the cap and skips the rest rather than deferring them', () => {
    expect(admitArrivals(5, 97, 100)).toEqual({ send: 3, skipped: 2 });
    expect(admitArrivals(5, 100, 100)).toEqual({ send: 0, skipped: 5 });
  });

  it('sends nothing when nothing is due', () => {
    expect(admitArrivals(0, 0, 100)).toEqual({ send: 0, skipped: 0 });
  });
});
