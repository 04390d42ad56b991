import { createServer, type Server } from 'node:http';
import type { PoolStats, QueryEvent } from '@animal-store/db';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PlanName } from '../limits/plans.js';
import type { AdmissionOutcome } from '../limits/rate-limit-store.js';
import type { ShedReason } from '../overload/load-shedding.js';

export type CallerKind = 'key' | 'ip';

/** How a create with an `Idempotency-Key` went. */
export type IdempotencyOutcome = 'created' | 'replayed' | 'key_reused';

/** What the metrics read from the server's dependencies each time they are scraped. */
export interface MetricsSources {
  /** Whether the instance should be sent requests, as `/readyz` answers: its database serves, and it is not shutting down. */
  ready: () => Promise<boolean>;
  /** PostgreSQL's connection pool; undefined on SQLite, which has none. */
  pool: () => PoolStats | undefined;
  /** Whether rate-limit counters are in Redis right now, rather than in this process. */
  countersInRedis: () => boolean;
}

const PREFIX = 'animal_store_';

/** From a fast read to a request held by a dependency's deadline (2 s). */
const HTTP_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const QUERY_SECONDS = [0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5];

function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

const DECISION_LABELS: Record<AdmissionOutcome, string> = {
  allowed: 'allowed',
  limited: 'rate_limited',
  banned: 'temporarily_banned',
};

/**
 * The server's Prometheus metrics. Every label is drawn from a fixed set (operation names,
 * status classes, plans), never from what a client sent, so their number stays small.
 */
export function createServerMetrics() {
  const registry = new Registry();
  const requests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by operation and status class (requests the HTTP parser refused included).',
    labelNames: ['operation', 'status_class'],
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time from a request reaching the app to its response being finished, by operation and status class.',
    labelNames: ['operation', 'status_class'],
    buckets: HTTP_SECONDS,
    registers: [registry],
  });
  const decisions = new Counter({
    name: `${PREFIX}rate_limit_decisions_total`,
    help: 'Rate-limit decisions: allowed, rate_limited or temporarily_banned, by plan and caller kind (key or ip).',
    labelNames: ['decision', 'plan', 'caller'],
    registers: [registry],
  });
  const idempotent = new Counter({
    name: `${PREFIX}idempotent_creates_total`,
    help: 'Creates carrying an Idempotency-Key, by outcome: created, replayed, or key_reused (409).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const querySeconds = new Histogram({
    name: `${PREFIX}db_query_duration_seconds`,
    help: 'Time each database statement took, failed ones included.',
    buckets: QUERY_SECONDS,
    registers: [registry],
  });
  const queryErrors = new Counter({
    name: `${PREFIX}db_query_errors_total`,
    help: 'Database statements that failed (refused, timed out, connection lost).',
    registers: [registry],
  });
  const shed = new Counter({
    name: `${PREFIX}shed_requests_total`,
    help: 'Requests answered 503 because the server was over its concurrency limit, by reason: waited_too_long (waited OVERLOAD_MAX_WAIT_MS for room).',
    labelNames: ['reason'],
    registers: [registry],
  });
  const fallbacks = new Counter({
    name: `${PREFIX}rate_limit_fallbacks_total`,
    help: 'Requests counted in this process because Redis was configured but did not answer.',
    registers: [registry],
  });

  // Children bound to their labels once: looking labels up on every request costs more.
  type RequestChild = { count: Counter.Internal; seconds: Histogram.Internal<string> };
  const requestChildren = new Map<string, RequestChild>();
  function requestChild(operation: string, status: number) {
    const labels = { operation, status_class: statusClass(status) };
    const id = `${labels.operation} ${labels.status_class}`;
    let child = requestChildren.get(id);
    if (!child) {
      child = { count: requests.labels(labels), seconds: requestSeconds.labels(labels) };
      requestChildren.set(id, child);
    }
    return child;
  }

  return {
    registry,

    /** A response the app finished, `seconds` after the request reached it. */
    requestFinished(operation: string, status: number, seconds: number): void {
      const child = requestChild(operation, status);
      child.count.inc();
      child.seconds.observe(seconds);
    },

    /** A request Node's HTTP parser refused (400, 431): answered before the app saw it. */
    requestRefused(status: number): void {
      requestChild('unmatched', status).count.inc();
    },

    rateLimitDecision(outcome: AdmissionOutcome, plan: PlanName, caller: CallerKind): void {
      decisions.inc({ decision: DECISION_LABELS[outcome], plan, caller });
    },

    idempotentCreate(outcome: IdempotencyOutcome): void {
      idempotent.inc({ outcome });
    },

    queryFinished(event: QueryEvent): void {
      querySeconds.observe(event.durationMs / 1000);
      if (event.failed) queryErrors.inc();
    },

    rateLimitFallback(): void {
      fallbacks.inc();
    },

    requestShed(reason: ShedReason): void {
      shed.inc({ reason });
    },

    /** Gauges of the work the server admits, read at scrape time. */
    watchLoad(load: { limit: () => number; inFlight: () => number; waiting: () => number }): void {
      const loadGauge = (name: string, help: string, read: () => number) =>
        new Gauge({
          name: `${PREFIX}${name}`,
          help,
          registers: [registry],
          collect() {
            this.set(read());
          },
        });
      loadGauge(
        'concurrency_limit',
        'How many requests the server admits at once now, learned from their latency; past it, requests wait, and are shed if they wait too long.',
        load.limit,
      );
      loadGauge(
        'requests_in_flight',
        'Requests admitted and not yet answered (probes and preflights apart).',
        load.inFlight,
      );
      loadGauge(
        'requests_waiting',
        'Requests beyond the concurrency limit waiting for room.',
        load.waiting,
      );
    },

    /** Gauges read at scrape time from the server's dependencies. */
    watch(sources: MetricsSources): void {
      new Gauge({
        name: `${PREFIX}ready`,
        help: 'Whether the server can serve requests (1) or not (0), as /readyz answers.',
        registers: [registry],
        async collect() {
          this.set((await sources.ready()) ? 1 : 0);
        },
      });
      new Gauge({
        name: `${PREFIX}rate_limit_store`,
        help: 'Where rate-limit counters are kept right now: redis (shared) or in_process (no Redis, or Redis away).',
        labelNames: ['store'],
        registers: [registry],
        collect() {
          const inRedis = sources.countersInRedis();
          this.set({ store: 'redis' }, inRedis ? 1 : 0);
          this.set({ store: 'in_process' }, inRedis ? 0 : 1);
        },
      });
      if (sources.pool() === undefined) return;
      const poolGauge = (name: string, help: string, read: (stats: PoolStats) => number) =>
        new Gauge({
          name: `${PREFIX}db_pool_${name}`,
          help,
          registers: [registry],
          collect() {
            const stats = sources.pool();
            if (stats) this.set(read(stats));
          },
        });
      poolGauge('connections', 'PostgreSQL: connections the pool holds open.', (s) => s.total);
      poolGauge('idle', 'PostgreSQL: pooled connections not in use.', (s) => s.idle);
      poolGauge(
        'waiting',
        'PostgreSQL: queries waiting for a pooled connection.',
        (s) => s.waiting,
      );
    },
  };
}

export type ServerMetrics = ReturnType<typeof createServerMetrics>;

export const METRICS_PATH = '/metrics';

/**
 * Serves `metrics` in the Prometheus text format on a listener of its own, away from the public
 * API: it needs no key and no rate limit because only the operator's network reaches it. The
 * process and Node.js runtime metrics are collected from here on.
 */
export function createMetricsServer(metrics: ServerMetrics): Server {
  const { registry } = metrics;
  collectDefaultMetrics({ register: registry });
  return createServer(async (req, res) => {
    const path = req.url?.split('?', 1)[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    try {
      const body = await registry.metrics();
      res.writeHead(200, { 'Content-Type': registry.contentType }).end(body);
    } catch {
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Collect failed\n');
    }
  });
}
