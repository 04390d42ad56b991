import { describe, expect, it } from 'vitest';
import { OVERLOAD_LEVELS } from './overload-levels.js';
import { medianLevel } from './overload-rounds.js';
import type { LevelResult } from './overload-run.js';

const MB = 1024 * 1024;

function round(okPerSecond: number, rest: Partial<LevelResult> = {}): LevelResult {
  return {
    level: OVERLOAD_LEVELS[2] ?? { kind: 'open', capacityMultiple: 1 },
    okPerSecond,
    shedPerSecond: 0,
    other: 0,
    pastDeadline: 0,
    pastDeadlineConnecting: 0,
    errors: 0,
    p50Ms: 2,
    p99Ms: 9,
    steadyP99Ms: 7,
    ratePerSecond: undefined,
    sent: 0,
    skipped: 0,
    serverCpuPercent: 100,
    peakRssBytes: 200 * MB,
    peakRssMethod: 'VmHWM',
    generatorCpuPercent: 50,
    generatorLoopDelayP99Ms: 12,
    admission: undefined,
    listenOverflowsPerSecond: 0,
    ...rest,
  };
}

const admission = (limitMedian: number, limitLeast: number, limitMost: number) => ({
  limitMedian,
  limitLeast,
  limitMost,
  waitingMedian: limitMedian * 10,
  requestsPerStatement: limitMedian / 10,
});

describe('medianLevel', () => {
  it('takes each rate and latency as the median of its own, the lower middle of an even count', () => {
    const summary = medianLevel([
      round(9_000, { p99Ms: 300, steadyP99Ms: 40 }),
      round(6_000, { p99Ms: 100, steadyP99Ms: 80 }),
      round(8_000, { p99Ms: 200, steadyP99Ms: 60 }),
      round(7_000, { p99Ms: 400, steadyP99Ms: 20 }),
    ]);
    expect(summary).toMatchObject({ okPerSecond: 7_000, p99Ms: 200, steadyP99Ms: 40 });
  });

  it('keeps what a median would hide: the highest memory and generator load, every error', () => {
    const summary = medianLevel([
      round(9_000, { peakRssBytes: 250 * MB, errors: 1, other: 3, skipped: 10 }),
      round(8_000, { generatorCpuPercent: 97, peakRssMethod: 'sampled' }),
      round(7_000, { errors: 2, generatorLoopDelayP99Ms: 80 }),
    ]);
    expect(summary).toMatchObject({
      peakRssBytes: 250 * MB,
      peakRssMethod: 'sampled',
      generatorCpuPercent: 97,
      generatorLoopDelayP99Ms: 80,
      errors: 3,
      other: 3,
      skipped: 10,
    });
  });

  it("gives the admission limit's median over the rounds and its extremes in any", () => {
    const summary = medianLevel([
      round(9_000, { admission: admission(120, 100, 300) }),
      round(8_000, { admission: admission(160, 110, 900) }),
      round(7_000, { admission: admission(140, 90, 200) }),
    ]);
    expect(summary.admission).toEqual({
      limitMedian: 140,
      limitLeast: 90,
      limitMost: 900,
      waitingMedian: 1_400,
      requestsPerStatement: 14,
    });
    expect(medianLevel([round(9_000)]).admission).toBeUndefined();
  });
});
