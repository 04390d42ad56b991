/**
 * The open loop's arrivals: evenly spaced at a fixed rate, the n-th (from 0) due at n / rate
 * seconds after the start, whatever became of the ones before. Even spacing rather than a
 * Poisson process keeps runs comparable: the same level offers every server the same load at
 * the same moments, and the only burstiness is the server's own.
 */

/** Time of the `index`-th arrival, in ms after the start. */
export const arrivalTimeMs = (index: number, ratePerSecond: number): number =>
  (index * 1000) / ratePerSecond;

/** How many arrivals are due by `elapsedMs` after the start: those at or before it. */
export function arrivalsDueBy(elapsedMs: number, ratePerSecond: number): number {
  if (elapsedMs < 0 || ratePerSecond <= 0) return 0;
  return Math.floor((elapsedMs * ratePerSecond) / 1000) + 1;
}

export interface Admission {
  /** Arrivals to send now. */
  send: number;
  /** Arrivals not sent because `cap` requests were outstanding: the generator's own limit. */
  skipped: number;
}

/**
 * Of `due` arrivals, those that fit beside `outstanding` requests under `cap`. The rest are
 * skipped, not deferred: an open loop that caught up later would send a burst the schedule
 * never had, and the cap only keeps the generator from running away with memory and sockets.
 */
export function admitArrivals(due: number, outstanding: number, cap: number): Admission {
  const room = Math.max(0, cap - outstanding);
  const send = Math.min(Math.max(0, due), room);
  return { send, skipped: Math.max(0, due) - send };
}
