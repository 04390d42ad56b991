import { headerLine, type RunHeader } from './report.js';
import { SETTLING_SECONDS, type SoakResult } from './soak.js';
import type { SeededTarget } from './target-run.js';
import type { BenchTarget } from './targets.js';

const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const integer = (value: number) => Math.round(value).toLocaleString('en');

/** Max RSS after the first minute minus RSS at the first minute, or why it cannot be told. */
function growthAfterSettling(result: SoakResult): string {
  const atSettled = result.rssSamples.find((sample) => sample.seconds >= SETTLING_SECONDS);
  const later = result.rssSamples.filter((sample) => sample.seconds > (atSettled?.seconds ?? 0));
  if (!atSettled || later.length === 0) {
    return `n/a (the soak must run past ${SETTLING_SECONDS} s; try --soak 600)`;
  }
  const peak = Math.max(...later.map((sample) => sample.rssBytes));
  const growth = peak - atSettled.rssBytes;
  return `${growth >= 0 ? '+' : ''}${megabytes(growth)} MB (max ${megabytes(peak)} MB after ${SETTLING_SECONDS} s − ${megabytes(atSettled.rssBytes)} MB at ${SETTLING_SECONDS} s)`;
}

/** The soak's series, one row per 10 s, and its verdict. */
export function renderSoakReport(
  header: RunHeader,
  target: BenchTarget,
  seeded: SeededTarget,
  result: SoakResult,
): string {
  const rows = result.intervals.map((interval) => [
    String(interval.endSeconds),
    integer(interval.requestsPerSecond),
    interval.p99Ms.toFixed(1),
    megabytes(interval.rssBytes),
    integer(interval.serverErrors),
    integer(interval.connectionErrors),
    integer(interval.timeouts),
    integer(interval.hostile4xx),
    integer(interval.unexpected),
  ]);
  const sum = (pick: (interval: SoakResult['intervals'][number]) => number) =>
    result.intervals.reduce((total, interval) => total + pick(interval), 0);
  const serverErrors = sum((interval) => interval.serverErrors);
  const connectionErrors = sum((interval) => interval.connectionErrors);
  const timeouts = sum((interval) => interval.timeouts);
  const errors = serverErrors + connectionErrors + timeouts;
  const unexpected = sum((interval) => interval.unexpected);
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    `# Animal Store soak: ${target.name}, mixed for ${result.seconds} s`,
    '',
    headerLine(header, `${result.connections} connections, mixed + ~2% hostile requests`),
    '',
    `- **${target.name}**: ${target.description}`,
    `- Idle RSS after seeding: ${megabytes(seeded.idleRssBytes)} MB`,
    `- Hostile requests sent: ${integer(result.hostileSent)} (malformed JSON, unknown routes, oversize bodies, bad query values, invalid bearer tokens); their 4xx answers are expected`,
    '',
    line([
      't (s)',
      'req/s',
      'p99 ms',
      'RSS MB',
      '5xx',
      'conn errors',
      'timeouts',
      'hostile 4xx',
      'unexpected non-2xx',
    ]),
    line([':--', ...Array(8).fill('--:')]),
    ...rows.map(line),
    '',
    `**Verdict**: ${errors === 0 ? 'no errors' : `⚠ ${integer(errors)} errors`} ` +
      `(${integer(serverErrors)} 5xx, ${integer(connectionErrors)} connection errors, ${integer(timeouts)} timeouts)` +
      `${unexpected > 0 ? `, ⚠ ${integer(unexpected)} unexpected non-2xx answers to well-formed requests` : ''}; ` +
      `RSS growth after the first minute: ${growthAfterSettling(result)}.`,
    '',
  ].join('\n');
}
