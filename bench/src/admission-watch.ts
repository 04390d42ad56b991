/**
 * What an API server's own metrics say of an overload level (issue 73): the admission limit it
 * learned and the line beyond it, sampled through the level, and how many requests shared each
 * database statement. Read from its Prometheus endpoint (`METRICS_PORT`), which serves on the
 * server's own event loop: a scrape every 250 ms costs it a few ms a second.
 */
import { median } from './median.js';

/** The server's metrics, as `apps/server/src/operations/metrics.ts` names them. */
const METRIC = {
  limit: 'animal_store_concurrency_limit',
  waiting: 'animal_store_requests_waiting',
  requests: 'animal_store_http_requests_total',
  statements: 'animal_store_db_query_duration_seconds_count',
} as const;

const SAMPLE_INTERVAL_MS = 250;
/**
 * Long enough for a server in the middle of a crowd's long turns to answer: a scrape given up
 * too soon would keep only the samples of its quiet moments.
 */
const SCRAPE_TIMEOUT_MS = 2_000;

export interface AdmissionSummary {
  limitMedian: number;
  limitLeast: number;
  limitMost: number;
  waitingMedian: number;
  /** Requests answered over statements sent in the level: how much each turn shared. */
  requestsPerStatement: number;
}

/**
 * The sum of every sample of metric `name` in Prometheus text (one per label set), or
 * undefined if it has none: a revision older than the metric.
 */
export function metricSum(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const next = line.charAt(name.length);
    if (next !== ' ' && next !== '{') continue;
    sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

interface Scrape {
  limit: number;
  waiting: number;
  requests: number;
  statements: number;
}

async function scrape(metricsOrigin: string): Promise<Scrape | undefined> {
  try {
    const response = await fetch(`${metricsOrigin}/metrics`, {
      signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS),
    });
    const text = await response.text();
    const [limit, waiting, requests, statements] = Object.values(METRIC).map((name) =>
      metricSum(text, name),
    );
    if (limit === undefined || waiting === undefined || requests === undefined) return undefined;
    return { limit, waiting, requests, statements: statements ?? 0 };
  } catch {
    // A server too busy to answer within the interval: that sample is missing, not zero.
    return undefined;
  }
}

/** The summary of a level's scrapes: gauges over all of them, counters from first to last. */
export function summarize(scrapes: readonly Scrape[]): AdmissionSummary | undefined {
  const first = scrapes[0];
  const last = scrapes.at(-1);
  if (!first || !last || scrapes.length < 2) return undefined;
  const limits = scrapes.map(({ limit }) => limit);
  const statements = last.statements - first.statements;
  return {
    limitMedian: median(limits),
    limitLeast: Math.min(...limits),
    limitMost: Math.max(...limits),
    waitingMedian: median(scrapes.map(({ waiting }) => waiting)),
    requestsPerStatement: statements > 0 ? (last.requests - first.requests) / statements : 0,
  };
}

export interface AdmissionWatch {
  /** Stops sampling; the level's summary, or undefined where the server has no such metrics. */
  finish(): Promise<AdmissionSummary | undefined>;
}

/** Samples the server at `metricsOrigin` from now until `finish`. */
export function watchAdmission(metricsOrigin: string): AdmissionWatch {
  const scrapes: Scrape[] = [];
  const take = async () => {
    const sample = await scrape(metricsOrigin);
    if (sample) scrapes.push(sample);
  };
  // One scrape at a time: a tick that finds one still waiting is skipped, not queued.
  let pending: Promise<void> | undefined;
  const next = () => {
    pending ??= take().finally(() => {
      pending = undefined;
    });
  };
  next();
  const timer = setInterval(next, SAMPLE_INTERVAL_MS);
  return {
    async finish() {
      clearInterval(timer);
      await pending;
      await take();
      return summarize(scrapes);
    },
  };
}
