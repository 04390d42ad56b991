import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createPrismaClient,
  type DatabaseClient,
  type DatabaseClientOptions,
  type QueryObserver,
} from '@animal-store/db';
import { type Logger, pino } from 'pino';
import { inject } from 'vitest';
import type { TrustedProxies } from '../../src/access/client-address.js';
import { animalStoreApi } from '../../src/animal-store-api.js';
import { resumingRepliesTogether } from '../../src/batching/replies-together.js';
import type { ClientTimeouts } from '../../src/http/limits.js';
import type { ApiDefinition } from '../../src/http/served-api.js';
import { createApiKeyStore, type NewApiKey } from '../../src/keys/api-key-store.js';
import { MemoryRateLimitStore } from '../../src/limits/memory-store.js';
import type { RateLimitStore } from '../../src/limits/rate-limit-store.js';
import type { ServerMetrics } from '../../src/operations/metrics.js';
import type { ConcurrencyLimitSettings } from '../../src/overload/concurrency-limit.js';
import { closeGracefully, createApiServer, listen } from '../../src/server.js';
import type { Tracing } from '../../src/tracing/tracing.js';
import { TestClock } from '../../testing/test-clock.js';
import { freshDatabase } from '../../testing/test-database.js';

/** Tests probe response bodies of every shape, so `json()` is untyped here. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface TestServer {
  /** The Node HTTP server itself, for tests that watch its requests. */
  server: Server;
  baseUrl: string;
  port: number;
  databaseUrl: string;
  db: DatabaseClient;
  /** The server's time, which stands still until the test moves it. */
  clock: TestClock;
  /** A key with room for every request a test makes; sent by `request` unless told otherwise. */
  apiKey: string;
  /** `fetch` relative to the server with `apiKey`, JSON-encoding `json` when given. */
  request(
    path: string,
    init?: RequestInit & { json?: unknown; apiKey?: string | null },
  ): Promise<TestResponse>;
  createKey(request: NewApiKey): Promise<string>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** The API to serve; the Animal Store's unless told. */
  api?: ApiDefinition;
  publicUrl?: string;
  logger?: Logger;
  /** The server's time; a fresh `TestClock` at TEST_CLOCK_START unless given (to share it). */
  clock?: TestClock;
  rateLimits?: RateLimitStore;
  trustProxy?: TrustedProxies;
  ipv6PrefixLength?: number;
  clientTimeouts?: Partial<ClientTimeouts>;
  corsOrigins?: string[];
  /** Another test server's database, served too (instances of one deployment); its own unless given. */
  sharedDatabaseUrl?: string;
  /** Rewrites the database URL the server connects to (say, through a proxy). */
  databaseUrlFor?: (url: string) => string;
  /** Told of every statement the server's database client runs. */
  onQuery?: QueryObserver;
  /** PostgreSQL deadlines in place of the server's (whose own tests leave them as they are). */
  databaseDeadlines?: Pick<
    DatabaseClientOptions,
    'connectTimeoutMs' | 'queryTimeoutMs' | 'statementTimeoutMs'
  >;
  /** Where the server counts what it does; a fresh set unless given. */
  metrics?: ServerMetrics;
  /** Where each request's trace is recorded; nowhere unless given. */
  tracing?: Tracing;
  /** How load shedding's concurrency limit learns; the server's defaults unless given. */
  concurrencyLimit?: Partial<ConcurrencyLimitSettings>;
  /** How long a request beyond the concurrency limit waits before it is shed (ms). */
  maxWaitMs?: number;
}

const ROOMY_QUOTA = { perMinute: 1_000_000, perDay: 10_000_000 };

/** A real server on a real SQLite database of its own, listening on a free port. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  // A shared database is its owner's to drop.
  const database =
    options.sharedDatabaseUrl === undefined
      ? await freshDatabase(inject('templateDatabase'))
      : { url: options.sharedDatabaseUrl, drop: async () => {} };
  const databaseUrl = options.databaseUrlFor?.(database.url) ?? database.url;
  const db = createPrismaClient(databaseUrl, {
    ...options.databaseDeadlines,
    onQuery: options.onQuery,
    continueReplies: resumingRepliesTogether(),
  });
  const keys = createApiKeyStore(db);
  const createKey = async (request: NewApiKey) => (await keys.create(request)).secret;
  const apiKey = await createKey({ label: 'test suite', plan: 'enterprise', quota: ROOMY_QUOTA });
  const rateLimits = options.rateLimits ?? new MemoryRateLimitStore();
  const clock = options.clock ?? new TestClock();
  const server = createApiServer({
    api: options.api ?? animalStoreApi,
    db,
    logger: options.logger ?? pino({ level: 'silent' }),
    rateLimits,
    publicUrl: options.publicUrl,
    clock,
    trustProxy: options.trustProxy,
    ipv6PrefixLength: options.ipv6PrefixLength,
    clientTimeouts: options.clientTimeouts,
    corsOrigins: options.corsOrigins,
    metrics: options.metrics,
    tracing: options.tracing,
    concurrencyLimit: options.concurrencyLimit,
    maxWaitMs: options.maxWaitMs,
  });
  await listen(server, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    server,
    baseUrl,
    port,
    databaseUrl,
    db,
    clock,
    apiKey,
    createKey,
    request(path, { json, apiKey: key = apiKey, ...init } = {}) {
      const headers = new Headers(init.headers);
      if (key !== null && !headers.has('authorization'))
        headers.set('authorization', `Bearer ${key}`);
      if (json !== undefined && !headers.has('content-type'))
        headers.set('content-type', 'application/json');
      const body = json === undefined ? init.body : JSON.stringify(json);
      return fetch(`${baseUrl}${path}`, { ...init, headers, body }) as Promise<TestResponse>;
    },
    async close() {
      // Nothing is in flight by now: the keep-alive connections fetch keeps idle need not be
      // waited for, as a shutting-down server waits for them.
      const closed = closeGracefully(server, 10_000);
      server.closeIdleConnections();
      await closed;
      await rateLimits.close();
      await db.$disconnect();
      await database.drop();
    },
  };
}
