import { DEADLINE_MS, levelLabel, MAX_OUTSTANDING, OVERLOAD_LEVELS } from './overload-levels.js';
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

/** 2xx per second, and beyond the first level its ratio to the first: the server's capacity. */
function answeredCell(result: LevelResult, capacity: number, isCapacityLevel: boolean): string {
  const answered = integer(result.okPerSecond);
  if (isCapacityLevel) return answered;
  return capacity > 0 ? `${answered} (${(result.okPerSecond / capacity).toFixed(2)}×)` : answered;
}

const generatorStrained = (result: LevelResult) =>
  result.generatorCpuPercent >= GENERATOR_BUSY_PERCENT ||
  result.generatorLoopDelayP99Ms >= GENERATOR_LATE_MS;

interface MetricRow {
  title: string;
  cell: (result: LevelResult, run: OverloadTargetRun, level: number) => string;
}

const METRICS: readonly MetricRow[] = [
  {
    title: 'answered 2xx per s (× its 50-client figure)',
    cell: (result, run, level) =>
      answeredCell(result, run.levels[0]?.okPerSecond ?? 0, level === 0),
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

/**
 * Issue 56's table: a column per level, a group of rows per measure with a row per server in
 * each, so that ours sits beside the bare baseline (and the compared revision) level by level.
 */
export function overloadTable(runs: readonly OverloadTargetRun[]): string {
  const head = ['', ...OVERLOAD_LEVELS.map(levelLabel)];
  const align = head.map((_, i) => (i === 0 ? 'left' : 'right') as 'left' | 'right');
  const rows: string[][] = [];
  for (const metric of METRICS) {
    rows.push([`**${metric.title}**`, ...OVERLOAD_LEVELS.map(() => '')]);
    for (const run of runs) {
      const cells = OVERLOAD_LEVELS.map((_, index) => {
        const result = run.levels[index];
        return result ? metric.cell(result, run, index) : 'n/a';
      });
      rows.push([run.target.name, ...cells]);
    }
  }
  return table(head, align, rows);
}

/** Every count behind the table, and how hard the generator itself worked for each level. */
export function overloadDetailTable(runs: readonly OverloadTargetRun[]): string {
  const head = [
    'level',
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
  const align = head.map((_, i) => (i < 2 ? 'left' : 'right') as 'left' | 'right');
  const rows: string[][] = [];
  OVERLOAD_LEVELS.forEach((level, index) => {
    runs.forEach((run, runIndex) => {
      const result = run.levels[index];
      if (!result) return;
      const strained = generatorStrained(result);
      rows.push([
        runIndex === 0 ? `**${levelLabel(level)}**` : '',
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
  });
  return table(head, align, rows);
}

function flaggedLines(runs: readonly OverloadTargetRun[]): string[] {
  const lines: string[] = [];
  for (const run of runs) {
    for (const result of run.levels) {
      const where = `**${run.target.name}, ${levelLabel(result.level)}**`;
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
  }
  return lines;
}

/** The whole overload report: header, the issue-style table, the counts behind it, notes. */
export function renderOverloadReport(
  header: RunHeader,
  runs: readonly OverloadTargetRun[],
  shape: OverloadShape,
): string {
  const sampled = runs.some((run) => run.levels.some((r) => r.peakRssMethod === 'sampled'));
  const flagged = flaggedLines(runs);
  return [
    `# Animal Store overload bench: ${runs.map((run) => run.target.name).join(' vs ')}`,
    '',
    headerLine(
      header,
      `get by random id, every request given up after ${DEADLINE_MS / 1000} s, ${shape.durationSeconds} s per level (${shape.warmupSeconds} s warm-up at 50 clients)`,
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
      `a level's seconds is counted. Latency percentiles count 2xx answers only. Peak RSS is the server's ${sampled ? 'RSS sampled every 100 ms' : 'VmHWM, reset before each level'}.`,
    '',
    overloadDetailTable(runs),
    '',
    `Idle RSS after seeding: ${runs.map((run) => `${run.target.name} ${megabytes(run.idleRssBytes)} MB`).join(' · ')}`,
    '',
    ...(flagged.length > 0 ? [...flagged, ''] : []),
  ].join('\n');
}
