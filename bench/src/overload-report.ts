import { DEADLINE_MS, levelLabel, MAX_OUTSTANDING, OVERLOAD_LEVELS } from './overload-levels.js';
import {
  medianLevels,
  medianOfRounds,
  sharesAgainstBaseline,
  sharesByRound,
} from './overload-rounds.js';
import type { LevelResult, OverloadShape, OverloadTargetRun } from './overload-run.js';
import { headerLine, type RunHeader } from './report.js';

const FLAG = '⚠';

/**
 * Above this share of a core, or this event-loop delay, the load generator may have been the
 * limit of a level rather than the server: such levels are flagged.
 */
const GENERATOR_BUSY_PERCENT = 90;
const GENERATOR_LATE_MS = 50;

const integer = (value: number) => Math.round(value).toLocaleString('en');
const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

function table(head: string[], align: Array<'left' | 'right'>, rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const rule = align.map((side) => (side === 'left' ? ':--' : '--:'));
  return [line(head), line(rule), ...rows.map(line)].join('\n');
}

/** Round by round, in order: a round without the figure says n/a in its place. */
const ratios = (byRound: ReadonlyArray<number | undefined>) =>
  byRound.map((value) => (value === undefined ? 'n/a' : value.toFixed(2))).join(', ');

/**
 * 2xx per second, and beyond the first level the median of the rounds' shares of their own
 * 50-client figure: over several rounds, not the median 2xx over the median capacity.
 */
function answeredCell(summary: LevelResult, run: OverloadTargetRun, level: number): string {
  const answered = integer(summary.okPerSecond);
  const share = level === 0 ? undefined : medianOfRounds(sharesByRound(run, level));
  return share === undefined ? answered : `${answered} (${share.toFixed(2)}×)`;
}

/** The crowd ratio: median of the rounds, the rounds' own in brackets. */
function crowdRatioCell(run: OverloadTargetRun, baseline: OverloadTargetRun, level: number) {
  if (run === baseline || level === 0) return '–';
  const byRound = sharesAgainstBaseline(run, baseline, level);
  const ratio = medianOfRounds(byRound);
  if (ratio === undefined) return 'n/a';
  const spread = byRound.length > 1 ? ` (${ratios(byRound)})` : '';
  return `**${ratio.toFixed(2)}**${spread}`;
}

const generatorStrained = (result: LevelResult) =>
  result.generatorCpuPercent >= GENERATOR_BUSY_PERCENT ||
  result.generatorLoopDelayP99Ms >= GENERATOR_LATE_MS;

interface MetricRow {
  title: string;
  cell: (summary: LevelResult, run: OverloadTargetRun, level: number) => string;
}

const METRICS: readonly MetricRow[] = [
  {
    title: "answered 2xx per s (× its 50-client figure; over rounds, each the rounds' median)",
    cell: (summary, run, level) => answeredCell(summary, run, level),
  },
  { title: 'shed (503) per s', cell: (result) => integer(result.shedPerSecond) },
  {
    title: `requests past the ${DEADLINE_MS / 1000} s deadline`,
    cell: (result) => integer(result.pastDeadline),
  },
  {
    title: 'of those, still connecting at the deadline',
    cell: (result) => integer(result.pastDeadlineConnecting),
  },
  { title: 'p50 / p99 ms of the 2xx', cell: (r) => `${integer(r.p50Ms)} / ${integer(r.p99Ms)}` },
  {
    title: 'p99 ms of the 2xx sent after the first second',
    cell: (result) => integer(result.steadyP99Ms),
  },
  { title: 'peak RSS MB', cell: (result) => megabytes(result.peakRssBytes) },
  {
    title: 'admission limit, median (least–most), from its metrics',
    cell: ({ admission: a }) =>
      a ? `${integer(a.limitMedian)} (${integer(a.limitLeast)}–${integer(a.limitMost)})` : '–',
  },
  {
    title: 'requests waiting for room, median',
    cell: ({ admission }) => (admission ? integer(admission.waitingMedian) : '–'),
  },
  {
    title: 'requests per database statement',
    cell: ({ admission }) => (admission ? integer(admission.requestsPerStatement) : '–'),
  },
  {
    title: 'listen-queue overflows per s (machine-wide)',
    cell: (result) => integer(result.listenOverflowsPerSecond),
  },
];

/** The rows that need every round, or the baseline beside: the spread and the crowd ratio. */
function roundRows(runs: readonly OverloadTargetRun[]): MetricRow[] {
  const rows: MetricRow[] = [];
  if (runs.some((run) => run.rounds.length > 1)) {
    rows.push({
      title: '× its 50-client figure, by round',
      cell: (_, run, level) => (level === 0 ? '–' : ratios(sharesByRound(run, level))),
    });
  }
  const baseline = runs.find((run) => run.target.isBaseline);
  if (baseline) {
    rows.push({
      title: `crowd ratio: × its 50-client figure over ${baseline.target.name}'s in the same round, median (by round)`,
      cell: (_, run, level) => crowdRatioCell(run, baseline, level),
    });
  }
  return rows;
}

/**
 * Issue 56's table: a column per level, a group of rows per measure with a row per server in
 * each, so that ours sits beside the bare baseline (and the compared revision) level by level.
 * Over several rounds each measure is the median of the rounds' (medianLevel), and the crowd
 * ratios of issue 73 follow, round by round.
 */
export function overloadTable(runs: readonly OverloadTargetRun[]): string {
  const head = ['', ...OVERLOAD_LEVELS.map(levelLabel)];
  const align = head.map((_, i) => (i === 0 ? 'left' : 'right') as 'left' | 'right');
  const summaries = new Map(runs.map((run) => [run, medianLevels(run)]));
  const rows: string[][] = [];
  for (const metric of [...METRICS, ...roundRows(runs)]) {
    rows.push([`**${metric.title}**`, ...OVERLOAD_LEVELS.map(() => '')]);
    for (const run of runs) {
      const cells = OVERLOAD_LEVELS.map((_, index) => {
        const summary = summaries.get(run)?.[index];
        return summary ? metric.cell(summary, run, index) : 'n/a';
      });
      rows.push([run.target.name, ...cells]);
    }
  }
  return table(head, align, rows);
}

/** Every count behind the table, round by round, and how hard the generator worked for each. */
export function overloadDetailTable(runs: readonly OverloadTargetRun[]): string {
  const rounds = Math.max(...runs.map((run) => run.rounds.length));
  const head = [
    'level',
    ...(rounds > 1 ? ['round'] : []),
    'server',
    'offered/s',
    'sent',
    'not sent (cap)',
    'other status',
    'errors',
    'server CPU %',
    'generator CPU %',
    'generator delay p99 ms',
  ];
  const labels = rounds > 1 ? 3 : 2;
  const align = head.map((_, i) => (i < labels ? 'left' : 'right') as 'left' | 'right');
  const rows: string[][] = [];
  OVERLOAD_LEVELS.forEach((level, index) => {
    for (let round = 0; round < rounds; round++) {
      runs.forEach((run, runIndex) => {
        const result = run.rounds[round]?.[index];
        if (!result) return;
        const strained = generatorStrained(result);
        const first = runIndex === 0;
        rows.push([
          first && round === 0 ? `**${levelLabel(level)}**` : '',
          ...(rounds > 1 ? [first ? String(round + 1) : ''] : []),
          run.target.name,
          result.ratePerSecond === undefined ? '' : integer(result.ratePerSecond),
          integer(result.sent),
          result.skipped > 0 ? `${FLAG} ${integer(result.skipped)}` : '0',
          result.other > 0 ? `${FLAG} ${integer(result.other)}` : '0',
          result.errors > 0 ? `${FLAG} ${integer(result.errors)}` : '0',
          integer(result.serverCpuPercent),
          `${strained ? `${FLAG} ` : ''}${integer(result.generatorCpuPercent)}`,
          result.generatorLoopDelayP99Ms.toFixed(1),
        ]);
      });
    }
  });
  return table(head, align, rows);
}

function flaggedLines(runs: readonly OverloadTargetRun[]): string[] {
  const lines: string[] = [];
  for (const run of runs) {
    run.rounds.forEach((levels, round) => {
      const inRound = run.rounds.length > 1 ? `, round ${round + 1}` : '';
      for (const result of levels) {
        const where = `**${run.target.name}, ${levelLabel(result.level)}${inRound}**`;
        if (generatorStrained(result)) {
          lines.push(
            `- ${FLAG} ${where}: the generator was busy or held up (${integer(result.generatorCpuPercent)} % CPU, ` +
              `event-loop delay p99 ${result.generatorLoopDelayP99Ms.toFixed(1)} ms): its lateness is in the latencies, and it may have sent less than asked`,
          );
        }
        if (result.skipped > 0) {
          lines.push(
            `- ${FLAG} ${where}: ${integer(result.skipped)} arrivals not sent, ${integer(MAX_OUTSTANDING)} requests being outstanding`,
          );
        }
      }
    });
  }
  return lines;
}

/** The whole overload report: header, the issue-style table, the counts behind it, notes. */
export function renderOverloadReport(
  header: RunHeader,
  runs: readonly OverloadTargetRun[],
  shape: OverloadShape,
): string {
  const sampled = runs.some((run) =>
    run.rounds.some((levels) => levels.some((r) => r.peakRssMethod === 'sampled')),
  );
  const flagged = flaggedLines(runs);
  const rounds = Math.max(...runs.map((run) => run.rounds.length));
  const roundsNote =
    rounds > 1
      ? ` Over ${rounds} rounds, a round being every level against every server in turn ` +
        "(alternating the order), each measure is the median of the rounds' (the lower middle " +
        "of an even count); peak RSS and the generator's load are the highest of any round, and " +
        'answers other than 2xx and 503, connection errors and arrivals not sent are summed. ' +
        "A share of the 50-client figure is over the same round's, and a server's share over " +
        "the baseline's is taken within each round: the crowd ratio of issue 73."
      : '';
  return [
    `# Animal Store overload bench: ${runs.map((run) => run.target.name).join(' vs ')}`,
    '',
    headerLine(
      header,
      `get by random id, every request given up after ${DEADLINE_MS / 1000} s, ${shape.durationSeconds} s per level (${shape.warmupSeconds} s warm-up at 50 clients)${rounds > 1 ? `, medians of ${rounds} rounds` : ''}`,
    ),
    '',
    ...runs.map((run) => `- **${run.target.name}**: ${run.target.description}`),
    '',
    overloadTable(runs),
    '',
    'Closed loop: N clients, each sending its next request when its last one ended (answered or ' +
      'given up at the deadline); naive ones at once, polite ones after a 503 wait its ' +
      'Retry-After and a random part of it again, as @animal-store/client does. Open loop: ' +
      "arrivals evenly spaced at 1, 2 and 4 times the server's own 50-client 2xx per second, " +
      'sent whatever became of the ones before, each timed from its arrival. Only what ends within ' +
      `a level's seconds is counted. Latency percentiles count 2xx answers only. Peak RSS is the server's ${sampled ? 'RSS sampled every 100 ms' : 'VmHWM, reset before each level'}.${roundsNote}`,
    '',
    overloadDetailTable(runs),
    '',
    `Idle RSS after seeding: ${runs.map((run) => `${run.target.name} ${megabytes(run.idleRssBytes)} MB`).join(' · ')}`,
    '',
    ...(flagged.length > 0 ? [...flagged, ''] : []),
  ].join('\n');
}
