import { describe, expect, it } from 'vitest';
import type { AdmissionSummary } from './admission-watch.js';
import { OVERLOAD_LEVELS } from './overload-levels.js';
import { overloadDetailTable, overloadTable, renderOverloadReport } from './overload-report.js';
import { medianLevel } from './overload-rounds.js';
import type { LevelResult, OverloadTargetRun } from './overload-run.js';
import type { RunHeader } from './report.js';

const MB = 1024 * 1024;

/** A level's result: `okPerSecond` as given, the rest plain unless overridden. */
function levelResult(index: number, okPerSecond: number, rest: Partial<LevelResult> = {}) {
  const level = OVERLOAD_LEVELS[index];
  if (!level) throw new Error(`no level ${index}`);
  return {
    level,
    okPerSecond,
    shedPerSecond: 0,
    other: 0,
    pastDeadline: 0,
    pastDeadlineConnecting: 0,
    errors: 0,
    p50Ms: 2,
    p99Ms: 9,
    steadyP99Ms: 7,
    ratePerSecond: level.kind === 'open' ? okPerSecond * level.capacityMultiple : undefined,
    sent: okPerSecond * 10,
    skipped: 0,
    serverCpuPercent: 100,
    peakRssBytes: 200 * MB,
    peakRssMethod: 'VmHWM' as const,
    generatorCpuPercent: 50,
    generatorLoopDelayP99Ms: 12,
    admission: undefined as AdmissionSummary | undefined,
    listenOverflowsPerSecond: 0,
    ...rest,
  };
}

function run(name: string, isBaseline: boolean, ...rounds: LevelResult[][]): OverloadTargetRun {
  return {
    target: {
      name,
      description: name,
      database: 'sqlite',
      isBaseline,
      start: async () => ({}) as never,
    },
    idleRssBytes: 170 * MB,
    rounds,
  };
}

const bare = run(
  'bare',
  true,
  OVERLOAD_LEVELS.map((_, index) => levelResult(index, 20_000, { peakRssBytes: 96 * MB })),
);
const ours = run('ours', false, [
  levelResult(0, 15_000),
  levelResult(1, 11_000, { shedPerSecond: 1_234.4, p50Ms: 78, p99Ms: 193.4, steadyP99Ms: 41.6 }),
  levelResult(2, 9_900, {
    pastDeadline: 5_221,
    pastDeadlineConnecting: 4_100,
    peakRssBytes: 382 * MB,
    admission: {
      limitMedian: 117,
      limitLeast: 100,
      limitMost: 176.4,
      waitingMedian: 2_983,
      requestsPerStatement: 114.2,
    },
    listenOverflowsPerSecond: 169.3,
  }),
  levelResult(3, 14_000),
  levelResult(4, 15_000),
  levelResult(5, 14_500, { skipped: 321, generatorCpuPercent: 97 }),
  levelResult(6, 13_800, { errors: 4 }),
]);

const HEADER: RunHeader = {
  date: new Date('2026-11-29T05:00:00Z'),
  revision: 'abc1234',
  machine: { cpuModel: 'Test CPU', cores: 2, nodeVersion: 'v20.20.2' },
  connections: 50,
  durationSeconds: 10,
  warmupSeconds: 2,
  rounds: 1,
  database: 'sqlite',
  redisUrl: undefined,
  serverNodeOptions: '',
  serverEnv: {},
};

describe('overloadTable', () => {
  const table = overloadTable([bare, ours]);

  it('has a column per level, in the order run', () => {
    expect(table.split('\n')[0]).toBe(
      '|  | closed 50 | closed 1,000 naive | closed 4,000 naive | closed 4,000 polite | open 1× capacity | open 2× capacity | open 4× capacity |',
    );
  });

  it("gives 2xx per second with each crowd's ratio to the server's own 50-client figure", () => {
    expect(table).toContain(
      '| ours | 15,000 | 11,000 (0.73×) | 9,900 (0.66×) | 14,000 (0.93×) | 15,000 (1.00×) | 14,500 (0.97×) | 13,800 (0.92×) |',
    );
    expect(table).toContain('| bare | 20,000 | 20,000 (1.00×) |');
  });

  it('puts the servers side by side under each measure', () => {
    const lines = table.split('\n');
    const deadline = lines.findIndex((line) =>
      line.startsWith('| **requests past the 1 s deadline**'),
    );
    expect(lines[deadline + 1]).toBe('| bare | 0 | 0 | 0 | 0 | 0 | 0 | 0 |');
    expect(lines[deadline + 2]).toBe('| ours | 0 | 0 | 5,221 | 0 | 0 | 0 | 0 |');
    const connecting = lines.indexOf(
      '| **of those, still connecting at the deadline** |  |  |  |  |  |  |  |',
    );
    expect(lines[connecting + 2]).toBe('| ours | 0 | 0 | 4,100 | 0 | 0 | 0 | 0 |');
    expect(table).toContain('| ours | 0 | 1,234 | 0 |');
    expect(table).toContain('| ours | 2 / 9 | 78 / 193 |');
    const steady = lines.indexOf(
      '| **p99 ms of the 2xx sent after the first second** |  |  |  |  |  |  |  |',
    );
    expect(lines[steady + 2]).toBe('| ours | 7 | 42 | 7 | 7 | 7 | 7 | 7 |');
    expect(table).toContain('| ours | 200 | 200 | 382 |');
    expect(table).toContain('| bare | 96 | 96 |');
  });

  it("gives the server's admission limit, its line, the requests sharing each statement and the kernel's dropped connections; nothing of the first three for the bare baseline", () => {
    expect(table).toContain('| ours | – | – | 117 (100–176) | – |');
    const lines = table.split('\n');
    const waiting = lines.indexOf('| **requests waiting for room, median** |  |  |  |  |  |  |  |');
    expect(lines[waiting + 1]).toBe('| bare | – | – | – | – | – | – | – |');
    expect(lines[waiting + 2]).toBe('| ours | – | – | 2,983 | – | – | – | – |');
    expect(table).toContain('| ours | – | – | 114 | – |');
    expect(table).toContain('| ours | 0 | 0 | 169 | 0 |');
  });

  it('says n/a for a level a server did not reach', () => {
    const cut = run('cut', false, [levelResult(0, 1_000)]);
    expect(overloadTable([cut])).toContain('| cut | 1,000 | n/a |');
  });
});

describe('overloadDetailTable', () => {
  it('flags arrivals not sent, errors and a busy generator', () => {
    const table = overloadDetailTable([bare, ours]);
    expect(table).toContain(
      '| **open 2× capacity** | bare | 40,000 | 200,000 | 0 | 0 | 0 | 100 | 50 | 12.0 |',
    );
    expect(table).toContain('|  | ours | 29,000 | 145,000 | ⚠ 321 | 0 | 0 | 100 | ⚠ 97 | 12.0 |');
    expect(table).toContain('|  | ours | 55,200 | 138,000 | 0 | 0 | ⚠ 4 | 100 | 50 | 12.0 |');
  });
});

describe('renderOverloadReport', () => {
  it('explains below the tables what may have limited a level', () => {
    const report = renderOverloadReport(HEADER, [bare, ours], {
      durationSeconds: 10,
      warmupSeconds: 2,
    });
    expect(report).toContain('10 s per level (2 s warm-up at 50 clients)');
    expect(report).toContain(
      '- ⚠ **ours, open 2× capacity**: the generator was busy or held up (97 % CPU',
    );
    expect(report).toContain('- ⚠ **ours, open 2× capacity**: 321 arrivals not sent');
    expect(report).not.toContain('**bare, open 2× capacity**');
  });
});

describe('over several rounds', () => {
  // Capacity 20,000 / 10,000 / 16,000 for the bare server, its 1,000-client share 0.5, 1.0, 0.75;
  // ours 10,000 / 12,000 / 8,000, its share 0.9, 0.5, 1.0.
  const bareRounds = [
    [20_000, 0.5, 90],
    [10_000, 1, 91],
    [16_000, 0.75, 92],
  ].map(([capacity = 0, share = 0, rss = 0]) => [
    levelResult(0, capacity, { peakRssBytes: rss * MB }),
    levelResult(1, capacity * share),
  ]);
  const oursRounds = [
    [10_000, 0.9, 210, 300, 50],
    [12_000, 0.5, 250, 100, 50],
    [8_000, 1, 230, 200, 95],
  ].map(([capacity = 0, share = 0, rss = 0, pastDeadline = 0, generatorCpuPercent = 0]) => [
    levelResult(0, capacity),
    levelResult(1, capacity * share, {
      peakRssBytes: rss * MB,
      pastDeadline,
      errors: 2,
      generatorCpuPercent,
    }),
  ]);
  const runs = [run('bare', true, ...bareRounds), run('ours', false, ...oursRounds)];
  const table = overloadTable(runs);
  const lines = table.split('\n');
  const rowsUnder = (title: string) => {
    const at = lines.findIndex((line) => line.startsWith(`| **${title}`));
    // The levels no round reached are n/a alike: one stands for them all.
    return [lines[at + 1], lines[at + 2]].map((line) => line?.replace(/( n\/a \|)+$/, ' n/a |'));
  };

  it("gives each measure as the median of the rounds', the share of capacity within each round", () => {
    // 2xx/s: the median of 9,000, 6,000, 8,000; the share: the median of 0.9, 0.5, 1.0.
    expect(rowsUnder('answered 2xx per s')[1]).toBe('| ours | 10,000 | 8,000 (0.90×) | n/a |');
    expect(rowsUnder('requests past the 1 s deadline')[1]).toBe('| ours | 0 | 200 | n/a |');
    // Peak RSS: the highest of any round.
    expect(rowsUnder('peak RSS MB')).toEqual([
      '| bare | 92 | 200 | n/a |',
      '| ours | 200 | 250 | n/a |',
    ]);
  });

  it('lists the shares round by round', () => {
    expect(rowsUnder('× its 50-client figure, by round')).toEqual([
      '| bare | – | 0.50, 1.00, 0.75 | n/a |',
      '| ours | – | 0.90, 0.50, 1.00 | n/a |',
    ]);
  });

  it("gives the crowd ratio, ours' share over the baseline's in the same round, as a median", () => {
    // 0.9 / 0.5, 0.5 / 1.0, 1.0 / 0.75: 1.80, 0.50, 1.33.
    expect(rowsUnder("crowd ratio: × its 50-client figure over bare's in the same round")).toEqual([
      '| bare | – | – | n/a |',
      '| ours | – | **1.33** (1.80, 0.50, 1.33) | n/a |',
    ]);
  });

  it('keeps each round in its place: a round without a 50-client figure is n/a, out of the median', () => {
    const stalled = run(
      'stalled',
      false,
      [levelResult(0, 10_000), levelResult(1, 9_000)],
      [levelResult(0, 0), levelResult(1, 0)],
      [levelResult(0, 8_000), levelResult(1, 6_000)],
    );
    const lines = overloadTable([runs[0] as OverloadTargetRun, stalled]).split('\n');
    expect(lines).toContain('| stalled | – | 0.90, n/a, 0.75 | n/a | n/a | n/a | n/a | n/a |');
    // 0.9 / 0.5 and 0.75 / 0.75: the lower middle of 1.80 and 1.00.
    expect(lines).toContain(
      '| stalled | – | **1.00** (1.80, n/a, 1.00) | n/a | n/a | n/a | n/a | n/a |',
    );
  });

  it('gives every round its rows of counts, and flags each round', () => {
    const detail = overloadDetailTable(runs);
    expect(detail.split('\n')[0]).toContain('| level | round | server |');
    expect(detail).toContain('|  | 3 | bare |');
    expect(detail).toContain('|  |  | ours |  | 80,000 | 0 | 0 | ⚠ 2 | 100 | ⚠ 95 | 12.0 |');
    const report = renderOverloadReport({ ...HEADER, rounds: 3 }, runs, {
      durationSeconds: 10,
      warmupSeconds: 2,
    });
    expect(report).toContain('medians of 3 rounds');
    expect(report).toContain('- ⚠ **ours, closed 1,000 naive, round 3**: the generator was busy');
    expect(report).not.toContain('round 1**: the generator');
  });
});

/** One round of the 4,000 naive clients' level: `okPerSecond` as given, the rest plain. */
const roundOf = (okPerSecond: number, rest: Partial<LevelResult> = {}) =>
  levelResult(2, okPerSecond, rest);

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
      roundOf(9_000, { p99Ms: 300, steadyP99Ms: 40 }),
      roundOf(6_000, { p99Ms: 100, steadyP99Ms: 80 }),
      roundOf(8_000, { p99Ms: 200, steadyP99Ms: 60 }),
      roundOf(7_000, { p99Ms: 400, steadyP99Ms: 20 }),
    ]);
    expect(summary).toMatchObject({ okPerSecond: 7_000, p99Ms: 200, steadyP99Ms: 40 });
  });

  it('keeps what a median would hide: the highest memory and generator load, every error', () => {
    const summary = medianLevel([
      roundOf(9_000, { peakRssBytes: 250 * MB, errors: 1, other: 3, skipped: 10 }),
      roundOf(8_000, { generatorCpuPercent: 97, peakRssMethod: 'sampled' }),
      roundOf(7_000, { errors: 2, generatorLoopDelayP99Ms: 80 }),
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
      roundOf(9_000, { admission: admission(120, 100, 300) }),
      roundOf(8_000, { admission: admission(160, 110, 900) }),
      roundOf(7_000, { admission: admission(140, 90, 200) }),
    ]);
    expect(summary.admission).toEqual({
      limitMedian: 140,
      limitLeast: 90,
      limitMost: 900,
      waitingMedian: 1_400,
      requestsPerStatement: 14,
    });
    expect(medianLevel([roundOf(9_000)]).admission).toBeUndefined();
  });
});
