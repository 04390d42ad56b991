import type { DatabaseKind } from './databases.js';
import type { Machine } from './machine.js';
import type { ScenarioResult } from './scenario-measurement.js';
import { SEED_PETS } from './seeding.js';
import type { TargetRun } from './target-run.js';

export interface RunHeader {
  date: Date;
  revision: string;
  machine: Machine;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Runs of each scenario against each server; the report gives each server's median round. */
  rounds: number;
  database: DatabaseKind;
  redisUrl: string | undefined;
  serverNodeOptions: string;
  /** Variables the API servers were started with beside the bench's own. */
  serverEnv: Record<string, string>;
}

const FLAG = '⚠';

const integer = (value: number) => Math.round(value).toLocaleString('en');
const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const ratio = (value: number, of: number) => (of > 0 ? (value / of).toFixed(2) : 'n/a');

function table(head: string[], align: Array<'left' | 'right'>, rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const rule = align.map((side) => (side === 'left' ? ':--' : '--:'));
  return [line(head), line(rule), ...rows.map(line)].join('\n');
}

const roundsNote = (rounds: number) =>
  rounds > 1 ? `, each server's median of ${rounds} rounds taken in turns` : '';

const isFlagged = (result: ScenarioResult) => result.non2xx > 0 || result.errors > 0;

/** Connection errors, with how many of them were timeouts. */
function errorsCell(result: ScenarioResult): string {
  if (result.errors === 0) return '0';
  const timeouts = result.timeouts > 0 ? ` (${integer(result.timeouts)} timeouts)` : '';
  return `**${FLAG} ${integer(result.errors)}${timeouts}**`;
}

/** The line under the title: what was measured, where and how, to compare like with like. */
export function headerLine(header: RunHeader, load: string): string {
  const { machine } = header;
  return [
    header.date.toISOString().replace(/\.\d+Z$/, 'Z'),
    `revision ${header.revision}`,
    `Node ${machine.nodeVersion}`,
    `${machine.cpuModel} × ${machine.cores} cores`,
    load,
    `database ${header.database}`,
    header.redisUrl
      ? `rate limits in Redis (${header.redisUrl})`
      : 'rate limits in-process (no Redis)',
    `server NODE_OPTIONS: ${header.serverNodeOptions.trim() || '(none)'}`,
    ...Object.entries(header.serverEnv).map(([name, value]) => `${name}=${value}`),
  ].join(' · ');
}

function flaggedLines(runs: readonly TargetRun[]): string[] {
  const lines: string[] = [];
  for (const run of runs) {
    for (const result of run.scenarios.filter(isFlagged)) {
      const statuses = Object.entries(result.statusCounts)
        .filter(([status]) => !status.startsWith('2'))
        .map(([status, count]) => `${count.toLocaleString('en')} × ${status}`)
        .join(', ');
      lines.push(
        `- ${FLAG} **${run.target.name} ${result.scenario}**: ${statuses || 'no non-2xx'}; ` +
          `${result.errors} connection errors (${result.timeouts} timeouts)`,
      );
    }
  }
  return lines;
}

/**
 * Each round's req/s, in the order run, and, for a comparison, our round over the compared
 * server's round that ran beside it: how far the rounds spread around the medians above.
 */
function roundsTable(runs: readonly TargetRun[], rounds: number, compared?: TargetRun): string[] {
  if (rounds < 2) return [];
  const scenarios = runs[0]?.scenarios.map((result) => result.scenario) ?? [];
  const head = [
    'scenario',
    'server',
    ...Array.from({ length: rounds }, (_, i) => `round ${i + 1}`),
  ];
  const align = head.map((_, i) => (i < 2 ? 'left' : 'right') as 'left' | 'right');
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    const comparedRates = compared?.roundRates[scenario];
    runs.forEach((run, index) => {
      const rates = run.roundRates[scenario] ?? [];
      const label = index === 0 ? `**${scenario}**` : '';
      rows.push([label, run.target.name, ...rates.map(integer)]);
      if (!comparedRates || run === compared || run.target.isBaseline) return;
      const paired = rates.map((rate, round) => ratio(rate, comparedRates[round] ?? 0));
      rows.push(['', `${run.target.name} ÷ ${compared.target.name}`, ...paired]);
    });
  }
  return ["Each round's req/s, in the order run:", '', table(head, align, rows), ''];
}

/**
 * The scenario table: one row per scenario and server, the servers of a scenario together so
 * that before and after sit side by side. Throughput is also given as a ratio of the bare
 * baseline's in the same run, which carries from machine to machine where req/s do not.
 */
export function renderScenarioReport(
  header: RunHeader,
  runs: readonly TargetRun[],
  comparedName?: string,
): string {
  const baseline = runs.find((run) => run.target.isBaseline);
  const compared = runs.find((run) => run.target.name === comparedName);
  const scenarios = runs[0]?.scenarios.map((result) => result.scenario) ?? [];
  const head = ['scenario', 'server', 'req/s', 'x of bare'];
  if (compared) head.push(`x of ${compared.target.name}`);
  head.push('p50 ms', 'p99 ms', 'CPU %', 'peak RSS MB', 'non-2xx', 'errors (timeouts)');
  const align = head.map((_, i) => (i < 2 ? 'left' : 'right') as 'left' | 'right');

  const rows: string[][] = [];
  for (const scenario of scenarios) {
    const bareResult = baseline?.scenarios.find((result) => result.scenario === scenario);
    const comparedResult = compared?.scenarios.find((result) => result.scenario === scenario);
    runs.forEach((run, index) => {
      const result = run.scenarios.find((candidate) => candidate.scenario === scenario);
      if (!result) return;
      const flagged = isFlagged(result);
      const row = [
        index === 0 ? `**${scenario}**` : '',
        flagged ? `${FLAG} ${run.target.name}` : run.target.name,
        integer(result.requestsPerSecond),
        bareResult ? ratio(result.requestsPerSecond, bareResult.requestsPerSecond) : 'n/a',
      ];
      if (compared) {
        const isOurs = !run.target.isBaseline && run !== compared;
        row.push(
          isOurs && comparedResult
            ? ratio(result.requestsPerSecond, comparedResult.requestsPerSecond)
            : '',
        );
      }
      row.push(
        integer(result.p50Ms),
        integer(result.p99Ms),
        integer(result.cpuPercent),
        megabytes(result.peakRssBytes),
        result.non2xx > 0 ? `**${FLAG} ${integer(result.non2xx)}**` : '0',
        errorsCell(result),
      );
      rows.push(row);
    });
  }

  const flagged = flaggedLines(runs);
  const sampled = runs.some((run) => run.scenarios.some((r) => r.peakRssMethod === 'sampled'));
  return [
    `# Animal Store bench: ${runs.map((run) => run.target.name).join(' vs ')}`,
    '',
    headerLine(
      header,
      `${header.connections} connections × ${header.durationSeconds} s per scenario (${header.warmupSeconds} s warm-up)${roundsNote(header.rounds)}`,
    ),
    '',
    ...runs.map((run) => `- **${run.target.name}**: ${run.target.description}`),
    '',
    table(head, align, rows),
    '',
    `Idle RSS after seeding: ${runs.map((run) => `${run.target.name} ${megabytes(run.idleRssBytes)} MB`).join(' · ')}`,
    '',
    `Seeding ${SEED_PETS.toLocaleString('en')} pets through the API (20 at a time): ${runs.map((run) => `${run.target.name} ${run.seedSeconds.toFixed(1)} s`).join(' · ')}`,
    '',
    'CPU % is the server process’s CPU time over the scenario’s wall time (100 = one core busy ' +
      'throughout; PostgreSQL and Redis are not counted). ' +
      `Peak RSS is the server's ${sampled ? 'RSS sampled every 100 ms' : 'VmHWM, reset before each scenario'}. ` +
      'Latency percentiles count 2xx answers only.',
    '',
    ...roundsTable(runs, header.rounds, compared),
    ...(flagged.length > 0
      ? [`${FLAG} Scenarios with non-2xx answers or connection errors:`, ...flagged]
      : ['No scenario had a non-2xx answer or a connection error.']),
    '',
  ].join('\n');
}
