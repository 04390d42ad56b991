import { median } from './median.js';
import type { ScenarioResult } from './scenario-measurement.js';

/**
 * One server's rounds of a scenario, as one result: throughput and latency from its median
 * round by req/s (the lower middle one of an even count), so that one round slowed by the
 * machine does not move the figure. What must not hide in a median is taken from every round:
 * the highest peak RSS, and all the non-2xx answers and connection errors.
 */
export function medianRound(rounds: readonly ScenarioResult[]): ScenarioResult {
  if (rounds.length === 0) throw new Error('a scenario needs at least one round');
  const middleRate = median(rounds.map((round) => round.requestsPerSecond));
  const middle = rounds.find((round) => round.requestsPerSecond === middleRate) as ScenarioResult;
  const statusCounts: Record<string, number> = {};
  for (const round of rounds) {
    for (const [status, count] of Object.entries(round.statusCounts)) {
      statusCounts[status] = (statusCounts[status] ?? 0) + count;
    }
  }
  const sum = (field: 'non2xx' | 'errors' | 'timeouts') =>
    rounds.reduce((total, round) => total + round[field], 0);
  const highest = rounds.reduce((top, round) =>
    round.peakRssBytes > top.peakRssBytes ? round : top,
  );
  return {
    ...middle,
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    statusCounts,
    peakRssBytes: highest.peakRssBytes,
    peakRssMethod: rounds.some((round) => round.peakRssMethod === 'sampled') ? 'sampled' : 'VmHWM',
  };
}
