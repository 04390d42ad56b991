import { type AddressInfo, isIPv6 } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { createPrismaClient, migrateDatabase, poolStatsOf } from '@animal-store/db';
import { animalStoreApi } from './animal-store-api.js';
import { resumingRepliesTogether } from './batching/replies-together.js';
import { type Config, configOrExit } from './config.js';
import { createRateLimitStore } from './limits/create-store.js';
import { boundedStdout, createLogger } from './logger.js';
import { Readiness } from './operations/health.js';
import { createMetricsServer, createServerMetrics } from './operations/metrics.js';
import { closeGracefully, createApiServer, listen } from './server.js';
import { stopOnSignals } from './shutdown.js';
import { startTracing } from './tracing/start-tracing.js';

/** How long spans still queued at shutdown get to reach the collector. */
const TRACE_FLUSH_MS = 1_000;

/**
 * Where a reader of the log opens the API: its public origin when set, else the address it
 * listens on (`localhost` when that is every interface, as Node reports it: `0.0.0.0` or `::`).
 */
function readerOrigin({ PUBLIC_URL }: Config, listening: AddressInfo): string {
  if (PUBLIC_URL) return PUBLIC_URL;
  const { address, port } = listening;
  if (address === '0.0.0.0' || address === '::') return `http://localhost:${port}`;
  return `http://${isIPv6(address) ? `[${address}]` : address}:${port}`;
}

const config = configOrExit();
const logger = createLogger(config.LOG_LEVEL, boundedStdout(config.LOG_BUFFER_BYTES));
// OpenTelemetry's standard variables, read apart from the config (docs/operations.md, "Tracing").
const tracing = await startTracing(logger, {
  databaseUrl: config.DATABASE_URL,
  redisUrl: config.REDIS_URL,
});

const metrics = createServerMetrics();
await migrateDatabase(config.DATABASE_URL).catch((error: unknown) => {
  // Said where operators look, in the JSON log; Node then prints the error and exits with 1.
  logger.fatal({ err: error }, 'the database could not be migrated: the server does not start');
  throw error;
});
const db = createPrismaClient(config.DATABASE_URL, {
  onQuery: metrics.queryFinished,
  poolSize: config.DATABASE_POOL_SIZE,
  statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
  connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
  busyTimeoutMs: config.DATABASE_BUSY_TIMEOUT_MS,
  // The batching stage, for PostgreSQL replies: those of one turn go on together.
  continueReplies: resumingRepliesTogether(),
});
const rateLimits = await createRateLimitStore(config.REDIS_URL, logger, {
  connectTimeoutMs: config.REDIS_CONNECT_TIMEOUT_MS,
  commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
  keyPrefix: config.REDIS_KEY_PREFIX,
  maxSubjects: config.RATE_LIMIT_MAX_SUBJECTS,
  onFallback: metrics.rateLimitFallback,
  tracing,
});
const readiness = new Readiness(db);
metrics.watch({
  ready: async () => (await readiness.problem()) === undefined,
  pool: () => poolStatsOf(db),
  countersInRedis: () => rateLimits.shared,
});
const server = createApiServer({
  api: animalStoreApi,
  db,
  logger,
  metrics,
  rateLimits,
  readiness,
  publicUrl: config.PUBLIC_URL,
  trustProxy: config.TRUST_PROXY,
  corsOrigins: config.CORS_ORIGINS,
  ipv6PrefixLength: config.IPV6_PREFIX_LENGTH,
  clientTimeouts: {
    headersMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestMs: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  },
  maxConnections: config.MAX_CONNECTIONS,
  concurrencyLimit: { targetLatencyMs: config.OVERLOAD_TARGET_LATENCY_MS },
  maxWaitMs: config.OVERLOAD_MAX_WAIT_MS,
  validateResponses: config.NODE_ENV !== 'production',
  tracing,
});
await listen(server, config.PORT, config.HOST);
const listening = server.address() as AddressInfo;
logger.info(
  { port: listening.port, docs: `${readerOrigin(config, listening)}/docs` },
  'Animal Store API listening',
);

/** The metrics listener, apart from the public port, when METRICS_PORT asks for one. */
async function serveMetrics(port: number | undefined) {
  if (port === undefined) return undefined;
  const metricsServer = createMetricsServer(metrics);
  await listen(metricsServer, port, config.METRICS_HOST);
  logger.info({ address: metricsServer.address() }, 'metrics served for Prometheus at /metrics');
  return metricsServer;
}
const metricsServer = await serveMetrics(config.METRICS_PORT);

stopOnSignals({
  drainMs: config.SHUTDOWN_DRAIN_MS,
  beginDrain: () => readiness.beginShutdown(),
  logger,
  async stop() {
    await Promise.all([
      closeGracefully(server, config.SHUTDOWN_GRACE_MS),
      metricsServer && closeGracefully(metricsServer, config.SHUTDOWN_GRACE_MS),
    ]);
    await Promise.all([db.$disconnect(), rateLimits.close(), tracing.shutdown(TRACE_FLUSH_MS)]);
    logger.info('stopped');
    // Log lines still buffered for stdout get a moment to reach it before the process exits.
    await Promise.race([
      new Promise((resolve) => logger.flush(resolve)),
      delay(1_000, undefined, { ref: false }),
    ]);
  },
});
