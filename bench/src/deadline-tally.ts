/**
 * What became of the requests of one overload level, counted the way a client with a deadline
 * sees them: an answer is only worth something if it came before the client gave up.
 */

/** What one request ended as, from the load generator's side. */
export type RequestEnd =
  | { kind: 'answer'; status: number; latencyMs: number }
  /**
   * The client gave up at its deadline: the answer, if one ever comes, is wasted work.
   * `connecting`: its connection's TCP handshake had not even finished, so the server never saw
   * the request (a listen queue full drops connection attempts, and they are retried a second
   * later).
   */
  | { kind: 'past-deadline'; connecting?: boolean }
  /** Refused, reset or closed before an answer: no status to count. */
  | { kind: 'error' };

export interface DeadlineTally {
  ok: number;
  shed: number;
  /** Answers other than 2xx and 503: none expected from well-formed requests. */
  other: number;
  pastDeadline: number;
  /** Of those, the requests whose connection was still being opened at the deadline. */
  pastDeadlineConnecting: number;
  errors: number;
  /** Latencies of the 2xx answers, for their percentiles. */
  okLatenciesMs: number[];
  /**
   * Those of the 2xx answers to requests sent after the level's first second, when every client
   * of a closed loop sends at once: what the server keeps to once the crowd has arrived.
   */
  steadyOkLatenciesMs: number[];
}

export const emptyTally = (): DeadlineTally => ({
  ok: 0,
  shed: 0,
  other: 0,
  pastDeadline: 0,
  pastDeadlineConnecting: 0,
  errors: 0,
  okLatenciesMs: [],
  steadyOkLatenciesMs: [],
});

/**
 * An answer read at or after the deadline counts as past it even though the deadline's timer
 * had not fired yet: a busy generator reads late, and the client would have given up already.
 */
export function classifyAnswer(status: number, latencyMs: number, deadlineMs: number): RequestEnd {
  return latencyMs >= deadlineMs
    ? { kind: 'past-deadline' }
    : { kind: 'answer', status, latencyMs };
}

/** @param steady the request was sent after the level's first second */
export function recordEnd(tally: DeadlineTally, end: RequestEnd, steady = false): void {
  if (end.kind === 'past-deadline') {
    tally.pastDeadline += 1;
    if (end.connecting === true) tally.pastDeadlineConnecting += 1;
  } else if (end.kind === 'error') tally.errors += 1;
  else if (end.status >= 200 && end.status < 300) {
    tally.ok += 1;
    tally.okLatenciesMs.push(end.latencyMs);
    if (steady) tally.steadyOkLatenciesMs.push(end.latencyMs);
  } else if (end.status === 503) tally.shed += 1;
  else tally.other += 1;
}

/** Requests that ended one way or another: every request sent, once the level has drained. */
export const endedCount = (tally: DeadlineTally): number =>
  tally.ok + tally.shed + tally.other + tally.pastDeadline + tally.errors;

/** The nearest-rank percentile of ascending `sorted`; 0 for none. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil(sorted.length * fraction));
  return sorted[Math.min(sorted.length, rank) - 1] ?? 0;
}

export interface DeadlineSummary {
  okPerSecond: number;
  shedPerSecond: number;
  other: number;
  pastDeadline: number;
  pastDeadlineConnecting: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  /** p99 of the 2xx to requests sent after the level's first second. */
  steadyP99Ms: number;
}

/** Rates over the level's measured seconds, and the 2xx latency percentiles. */
export function summarizeTally(tally: DeadlineTally, seconds: number): DeadlineSummary {
  const ascending = (latencies: readonly number[]) => [...latencies].sort((a, b) => a - b);
  const sorted = ascending(tally.okLatenciesMs);
  const perSecond = (count: number) => (seconds > 0 ? count / seconds : 0);
  return {
    okPerSecond: perSecond(tally.ok),
    shedPerSecond: perSecond(tally.shed),
    other: tally.other,
    pastDeadline: tally.pastDeadline,
    pastDeadlineConnecting: tally.pastDeadlineConnecting,
    errors: tally.errors,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    steadyP99Ms: percentile(ascending(tally.steadyOkLatenciesMs), 0.99),
  };
}
