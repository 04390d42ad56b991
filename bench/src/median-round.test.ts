import { describe, expect, it } from 'vitest';
import { medianRound } from './median-round.js';
import type { ScenarioResult } from './scenario-measurement.js';

function round(requestsPerSecond: number, more: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    scenario: 'get',
    requestsPerSecond,
    p50Ms: requestsPerSecond / 1000,
    p99Ms: requestsPerSecond / 100,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCounts: { 200: requestsPerSecond * 10 },
    cpuPercent: 100,
    peakRssBytes: 200e6,
    peakRssMethod: 'VmHWM',
    ...more,
  };
}

describe('medianRound', () => {
  it('is the one round itself when there is one', () => {
    const only = round(4_000);
    expect(medianRound([only])).toEqual(only);
  });

  it("takes throughput and latency from the median round, whatever the rounds' order", () => {
    const median = medianRound([round(5_000), round(1_000), round(3_000)]);
    expect(median).toMatchObject({ requestsPerSecond: 3_000, p50Ms: 3, p99Ms: 30 });
  });

  it('takes the lower middle round of an even count', () => {
    const median = medianRound([round(4_000), round(1_000), round(3_000), round(2_000)]);
    expect(median.requestsPerSecond).toBe(2_000);
  });

  it('keeps the highest peak RSS and every failure of every round', () => {
    const median = medianRound([
      round(1_000, { peakRssBytes: 260e6 }),
      round(3_000, { non2xx: 2, statusCounts: { 200: 30_000, 503: 2 } }),
      round(2_000, {
        errors: 3,
        timeouts: 1,
        peakRssMethod: 'sampled',
        statusCounts: { 200: 20_000 },
      }),
    ]);
    expect(median).toMatchObject({
      requestsPerSecond: 2_000,
      non2xx: 2,
      errors: 3,
      timeouts: 1,
      statusCounts: { 200: 60_000, 503: 2 },
      peakRssBytes: 260e6,
      peakRssMethod: 'sampled',
    });
  });

  it('refuses no rounds at all', () => {
    expect(() => medianRound([])).toThrow(/at least one round/);
  });
});
