import type { Request } from 'autocannon';
import { hostileRequest } from './hostile-requests.js';
import { runLoad } from './load-run.js';
import { statusBytes } from './process-stats.js';
import { progress } from './progress.js';
import { mixedShape } from './scenarios.js';
import type { SeededTarget } from './target-run.js';

/** About one request in fifty is hostile. */
const HOSTILE_SHARE = 0.02;
const INTERVAL_SECONDS = 10;
/** RSS is read every second, so the verdict sees peaks between the table's rows. */
const RSS_SAMPLE_MS = 1_000;
/** Memory growth is judged after the first minute: before it, caches and JIT still fill up. */
export const SETTLING_SECONDS = 60;

export interface SoakInterval {
  /** Seconds since the start, at the end of the interval. */
  endSeconds: number;
  requestsPerSecond: number;
  p99Ms: number;
  rssBytes: number;
  serverErrors: number;
  connectionErrors: number;
  timeouts: number;
  /** 4xx answers to the hostile requests: expected. */
  hostile4xx: number;
  /** Non-2xx answers (other than 5xx) to well-formed requests: not expected. */
  unexpected: number;
}

export interface SoakResult {
  seconds: number;
  connections: number;
  intervals: SoakInterval[];
  hostileSent: number;
  rssSamples: Array<{ seconds: number; rssBytes: number }>;
}

interface Tally {
  latencies: number[];
  serverErrors: number;
  connectionErrors: number;
  timeouts: number;
  hostile4xx: number;
  unexpected: number;
}

const emptyTally = (): Tally => ({
  latencies: [],
  serverErrors: 0,
  connectionErrors: 0,
  timeouts: 0,
  hostile4xx: 0,
  unexpected: 0,
});

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)] ?? 0;
}

/**
 * `mixed` at full load for `seconds`, with a small share of hostile requests, sampled every
 * 10 s. Which answer belongs to a hostile request is known from the connection's context:
 * with one request in flight per connection, the answer comes before the next request is made.
 */
export async function soak(
  seeded: SeededTarget,
  seconds: number,
  connections: number,
): Promise<SoakResult> {
  const { server, apiKey } = seeded.started;
  const mixed = mixedShape(seeded.inputs);
  let hostileSent = 0;
  let tally = emptyTally();
  const request: Request = {
    setupRequest: (base: Request, context: object) => {
      const hostile = Math.random() < HOSTILE_SHARE;
      (context as { hostile?: boolean }).hostile = hostile;
      if (!hostile) return mixed(base);
      hostileSent += 1;
      return hostileRequest(base);
    },
    onResponse: (status: number, _body: string, context: object) => {
      if (status >= 500) tally.serverErrors += 1;
      else if ((context as { hostile?: boolean }).hostile) {
        if (status >= 400) tally.hostile4xx += 1;
        else tally.unexpected += 1;
      } else if (status >= 300) tally.unexpected += 1;
    },
  };

  const intervals: SoakInterval[] = [];
  const rssSamples: SoakResult['rssSamples'] = [];
  let startedAt = Date.now();
  let intervalStartedAt = startedAt;
  const elapsed = () => (Date.now() - startedAt) / 1000;
  const readRss = () => {
    try {
      const rssBytes = statusBytes(server.pid, 'VmRSS');
      rssSamples.push({ seconds: elapsed(), rssBytes });
      return rssBytes;
    } catch {
      return rssSamples.at(-1)?.rssBytes ?? 0;
    }
  };
  const closeInterval = () => {
    const now = Date.now();
    const span = (now - intervalStartedAt) / 1000;
    intervalStartedAt = now;
    const done = tally;
    tally = emptyTally();
    if (span < 1) return;
    const sorted = done.latencies.sort((a, b) => a - b);
    const interval: SoakInterval = {
      endSeconds: Math.round(elapsed()),
      requestsPerSecond: done.latencies.length / span,
      p99Ms: percentile(sorted, 0.99),
      rssBytes: readRss(),
      serverErrors: done.serverErrors,
      connectionErrors: done.connectionErrors,
      timeouts: done.timeouts,
      hostile4xx: done.hostile4xx,
      unexpected: done.unexpected,
    };
    intervals.push(interval);
    progress(
      `soak ${interval.endSeconds}s: ${Math.round(interval.requestsPerSecond)} req/s, ` +
        `p99 ${interval.p99Ms.toFixed(1)} ms, RSS ${(interval.rssBytes / 1048576).toFixed(0)} MB`,
    );
  };

  let ticker: NodeJS.Timeout | undefined;
  let sampler: NodeJS.Timeout | undefined;
  try {
    await runLoad(
      { origin: server.origin, apiKey, connections, durationSeconds: seconds, requests: [request] },
      (instance) => {
        instance.on('start', () => {
          startedAt = Date.now();
          intervalStartedAt = startedAt;
          readRss();
          ticker = setInterval(closeInterval, INTERVAL_SECONDS * 1000);
          sampler = setInterval(readRss, RSS_SAMPLE_MS);
        });
        instance.on('response', (_client, _status, _bytes, responseTime) => {
          tally.latencies.push(responseTime);
        });
        instance.on('reqError', (error: Error) => {
          if (error.message === 'request timed out') tally.timeouts += 1;
          else tally.connectionErrors += 1;
        });
      },
    );
  } finally {
    clearInterval(ticker);
    clearInterval(sampler);
  }
  closeInterval();
  return { seconds, connections, intervals, hostileSent, rssSamples };
}
