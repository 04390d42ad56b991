import { describe, expect, it } from 'vitest';
import { type RunHeader, renderScenarioReport } from './report.js';
import type { ScenarioResult } from './scenario-measurement.js';
import type { TargetRun } from './target-run.js';

function header(rounds: number): RunHeader {
  return {
    date: new Date('2026-11-26T12:00:00Z'),
    revision: 'abc1234',
    machine: { cpuModel: 'Test CPU', cores: 2, nodeVersion: 'v20.20.2' },
    connections: 50,
    durationSeconds: 5,
    warmupSeconds: 2,
    rounds,
    database: 'sqlite',
    redisUrl: undefined,
    serverNodeOptions: '',
    serverEnv: {},
  };
}

function result(requestsPerSecond: number): ScenarioResult {
  return {
    scenario: 'get',
    requestsPerSecond,
    p50Ms: 2,
    p99Ms: 9,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCounts: { 200: requestsPerSecond * 5 },
    cpuPercent: 100,
    peakRssBytes: 200 * 1024 * 1024,
    peakRssMethod: 'VmHWM',
  };
}

/** A server's run of `get`, its median (the table's figure) and each round's req/s. */
function run(name: string, isBaseline: boolean, rates: number[]): TargetRun {
  const median = [...rates].sort((a, b) => a - b)[Math.floor((rates.length - 1) / 2)] ?? 0;
  return {
    target: {
      name,
      description: name,
      database: 'sqlite',
      isBaseline,
      start: async () => ({}) as never,
    },
    seedSeconds: 1,
    idleRssBytes: 100 * 1024 * 1024,
    scenarios: [result(median)],
    roundRates: { get: rates },
  };
}

describe('renderScenarioReport', () => {
  it("lists each round's req/s and our rounds over the compared server's, round by round", () => {
    const runs = [
      run('bare', true, [20_000, 19_000, 21_000]),
      run('ours', false, [9_000, 8_000, 10_000]),
      run('before', false, [10_000, 10_000, 8_000]),
    ];
    const report = renderScenarioReport(header(3), runs, 'before');

    expect(report).toContain('| **get** | bare | 20,000 | 19,000 | 21,000 |');
    expect(report).toContain('|  | ours | 9,000 | 8,000 | 10,000 |');
    expect(report).toContain('|  | ours ÷ before | 0.90 | 0.80 | 1.25 |');
    expect(report).toContain('|  | before | 10,000 | 10,000 | 8,000 |');
    // The main table keeps the ratio of the medians: 9,000 over 10,000.
    expect(report).toContain('|  | ours | 9,000 | 0.45 | 0.90 |');
  });

  it('has no table of rounds for a single round', () => {
    const report = renderScenarioReport(header(1), [run('bare', true, [20_000])]);
    expect(report).not.toContain("Each round's req/s");
    expect(report).toContain('| **get** | bare | 20,000 | 1.00 |');
  });
});
