import type { AdmissionSummary } from './admission-watch.js';
import { median } from './median.js';
import type { LevelResult, OverloadTargetRun } from './overload-run.js';

/**
 * A level's 2xx per second as a share of the 50-client figure of the same round (the first
 * level's): what a crowd leaves of a server's capacity. Undefined where nothing was served at 50.
 */
export function shareOfCapacity(round: readonly LevelResult[], index: number): number | undefined {
  const capacity = round[0]?.okPerSecond ?? 0;
  const result = round[index];
  return result && capacity > 0 ? result.okPerSecond / capacity : undefined;
}

/** A server's share of its capacity at level `index`, round by round (undefined: none). */
export function sharesByRound(run: OverloadTargetRun, index: number): Array<number | undefined> {
  return run.rounds.map((round) => shareOfCapacity(round, index));
}

/**
 * A server's share at level `index` over the baseline's share in the same round, round by round:
 * the crowd ratio. A crowd costs every server on this machine its load generator's CPU
 * and the kernel's dropped connections; the baseline's share is what the machine itself allows,
 * so only a ratio taken within one round compares the servers, never one across rounds.
 */
export function sharesAgainstBaseline(
  run: OverloadTargetRun,
  baseline: OverloadTargetRun,
  index: number,
): Array<number | undefined> {
  const theirs = sharesByRound(baseline, index);
  return sharesByRound(run, index).map((ours, round) => {
    const base = theirs[round];
    return ours !== undefined && base ? ours / base : undefined;
  });
}

/** The median of the rounds that have a figure, or undefined if none has. */
export function medianOfRounds(byRound: ReadonlyArray<number | undefined>): number | undefined {
  const figures = byRound.filter((figure) => figure !== undefined);
  return figures.length > 0 ? median(figures) : undefined;
}

/** The measures of a level that are plain numbers. */
type NumericMeasure = {
  [K in keyof LevelResult]-?: LevelResult[K] extends number ? K : never;
}[keyof LevelResult];

function medianAdmission(rounds: readonly AdmissionSummary[]): AdmissionSummary | undefined {
  if (rounds.length === 0) return undefined;
  const of = (field: keyof AdmissionSummary) => median(rounds.map((round) => round[field]));
  return {
    limitMedian: of('limitMedian'),
    limitLeast: Math.min(...rounds.map((round) => round.limitLeast)),
    limitMost: Math.max(...rounds.map((round) => round.limitMost)),
    waitingMedian: of('waitingMedian'),
    requestsPerStatement: of('requestsPerStatement'),
  };
}

/**
 * One level's rounds as one result: each rate and latency the median of the rounds' (taken
 * measure by measure: the round with the median 2xx is not the one with the median p99). What
 * must not hide in a median comes from every round: the highest peak RSS and generator load,
 * the least and most admission limit, and every answer other than 2xx and 503, connection error
 * and arrival not sent.
 */
export function medianLevel(rounds: readonly LevelResult[]): LevelResult {
  const first = rounds[0];
  if (!first) throw new Error('a level needs at least one round');
  const of = (field: NumericMeasure) => median(rounds.map((round) => round[field]));
  const most = (field: 'peakRssBytes' | 'generatorCpuPercent' | 'generatorLoopDelayP99Ms') =>
    Math.max(...rounds.map((round) => round[field]));
  const sum = (field: 'other' | 'errors' | 'skipped') =>
    rounds.reduce((total, round) => total + round[field], 0);
  const admissions = rounds.flatMap((round) => (round.admission ? [round.admission] : []));
  return {
    level: first.level,
    okPerSecond: of('okPerSecond'),
    shedPerSecond: of('shedPerSecond'),
    other: sum('other'),
    pastDeadline: of('pastDeadline'),
    pastDeadlineConnecting: of('pastDeadlineConnecting'),
    errors: sum('errors'),
    p50Ms: of('p50Ms'),
    p99Ms: of('p99Ms'),
    steadyP99Ms: of('steadyP99Ms'),
    ratePerSecond:
      first.ratePerSecond === undefined
        ? undefined
        : median(rounds.map((round) => round.ratePerSecond ?? 0)),
    sent: of('sent'),
    skipped: sum('skipped'),
    serverCpuPercent: of('serverCpuPercent'),
    peakRssBytes: most('peakRssBytes'),
    peakRssMethod: rounds.some((round) => round.peakRssMethod === 'sampled') ? 'sampled' : 'VmHWM',
    generatorCpuPercent: most('generatorCpuPercent'),
    generatorLoopDelayP99Ms: most('generatorLoopDelayP99Ms'),
    admission: medianAdmission(admissions),
    listenOverflowsPerSecond: of('listenOverflowsPerSecond'),
  };
}

/** A server's levels, each the median of its rounds (medianLevel). */
export function medianLevels(run: OverloadTargetRun): LevelResult[] {
  const levels = run.rounds[0]?.length ?? 0;
  return Array.from({ length: levels }, (_, index) =>
    medianLevel(run.rounds.flatMap((round) => (round[index] ? [round[index]] : []))),
  );
}
