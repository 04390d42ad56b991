/**
 * Prometheus metrics and trace context, from outside: a server started as users start it, with
 * METRICS_PORT set and a Redis of its own, is sent known traffic; its metrics listener is then
 * scraped and every counter must have moved by exactly what that traffic explains.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { freePort } from '@animal-store/local-ports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropScratchDatabases,
  scratchDatabaseUrl,
  TEST_PROVIDER,
} from '../testing/test-database.js';
import { awayFromMinuteEnd } from './support/minute-window.js';
import { sendRaw } from './support/raw-http.js';
import { startRedisServer } from './support/redis-process.js';
import {
  createRoomyKey,
  killLeftoverServers,
  runKeys,
  type ServerProcess,
  startServerProcess,
} from './support/server-process.js';

type Labels = Record<string, string>;

interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a Prometheus text exposition. */
function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [, name = '', labelText = '', value = ''] = SAMPLE.exec(line) ?? [];
      const labels = Object.fromEntries(
        [...labelText.matchAll(LABEL)].map(([, key = '', labelValue = '']) => [key, labelValue]),
      );
      return { name, labels, value: Number(value) };
    });
}

/** A scrape, read as: the value of the sample with this name and exactly these labels (0 if none). */
type Scrape = (name: string, labels?: Labels) => number;

function sampleReader(samples: Sample[]): Scrape {
  return (name, labels = {}) => {
    const wanted = Object.entries(labels);
    const found = samples.find(
      (sample) =>
        sample.name === name &&
        Object.keys(sample.labels).length === wanted.length &&
        wanted.every(([key, value]) => sample.labels[key] === value),
    );
    return found?.value ?? 0;
  };
}

let redis: ChildProcess;
let server: ServerProcess;
let metricsUrl: string;
let databaseUrl: string;
let roomyKey: string;
const logLines: string[] = [];

beforeAll(async () => {
  const redisPort = await freePort();
  redis = await startRedisServer(redisPort);
  const metricsPort = await freePort();
  databaseUrl = await scratchDatabaseUrl();
  server = await startServerProcess(
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    { stdout: 'pipe' },
  );
  if (!server.child.stdout) throw new Error('the server log is not piped');
  createInterface({ input: server.child.stdout }).on('line', (line) => logLines.push(line));
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  roomyKey = await createRoomyKey(databaseUrl);
});

afterAll(async () => {
  killLeftoverServers();
  redis?.kill('SIGKILL');
  await dropScratchDatabases();
});

async function scrape(): Promise<Scrape> {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return sampleReader(parseExposition(await res.text()));
}

/** How much each sample moved across `traffic`, read from a scrape before and one after. */
async function across(traffic: () => Promise<void>): Promise<Scrape> {
  const before = await scrape();
  await traffic();
  const after = await scrape();
  return (name, labels) => after(name, labels) - before(name, labels);
}

function api(path: string, init: RequestInit & { key?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set('authorization', `Bearer ${init.key}`);
  return fetch(`${server.baseUrl}${path}`, { ...init, headers });
}

function create(key: string, body: unknown, idempotencyKey?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  return api('/v1/pets', { method: 'POST', key, headers, body: JSON.stringify(body) });
}

async function createKeyLimitedTo(perMinute: number): Promise<string> {
  const result = await runKeys(databaseUrl, [
    'create',
    '--label',
    'tight',
    '--plan',
    'enterprise',
    '--per-minute',
    String(perMinute),
    '--per-day',
    '1000',
    '--json',
  ]);
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { key: string }).key;
}

const requests = 'animal_store_http_requests_total';
const durations = 'animal_store_http_request_duration_seconds_count';
const decisions = 'animal_store_rate_limit_decisions_total';

describe('GET /metrics on its own listener', () => {
  it('counts requests by operation and status class, and times the ones the app answered', async () => {
    const moved = await across(async () => {
      for (let i = 0; i < 2; i += 1) {
        expect((await create(roomyKey, { name: `Rex ${i}`, categoryId: 1 })).status).toBe(201);
      }
      for (let i = 0; i < 3; i += 1)
        expect((await api('/v1/pets', { key: roomyKey })).status).toBe(200);
      expect((await api('/v1/pets/999999', { key: roomyKey })).status).toBe(404);
      expect((await api('/v1/pets')).status).toBe(401);
      expect((await api('/nowhere')).status).toBe(404);
      expect((await api('/healthz')).status).toBe(200);
    });
    const port = Number(new URL(server.baseUrl).port);
    const refused = await across(async () => {
      expect((await sendRaw(port, 'NOT HTTP AT ALL\r\n\r\n')).status).toBe(400);
    });

    expect(moved(requests, { operation: 'createPet', status_class: '2xx' })).toBe(2);
    expect(moved(requests, { operation: 'listPets', status_class: '2xx' })).toBe(3);
    expect(moved(requests, { operation: 'listPets', status_class: '4xx' })).toBe(1);
    expect(moved(requests, { operation: 'getPet', status_class: '4xx' })).toBe(1);
    expect(moved(requests, { operation: 'unmatched', status_class: '4xx' })).toBe(1);
    expect(moved(requests, { operation: 'healthz', status_class: '2xx' })).toBe(1);
    expect(moved(durations, { operation: 'listPets', status_class: '2xx' })).toBe(3);
    expect(moved(durations, { operation: 'createPet', status_class: '2xx' })).toBe(2);
    // A request Node's parser refused is counted, though the app never saw it to time it.
    expect(refused(requests, { operation: 'unmatched', status_class: '4xx' })).toBe(1);
    expect(refused(durations, { operation: 'unmatched', status_class: '4xx' })).toBe(0);
  });

  it('counts rate-limit decisions by outcome, plan and caller kind', async () => {
    const tightKey = await createKeyLimitedTo(2);
    // A server process reads the wall clock (only an in-process server takes a test's): stay in one minute.
    await awayFromMinuteEnd(10);
    const moved = await across(async () => {
      const statuses = [];
      for (let i = 0; i < 4; i += 1)
        statuses.push((await api('/v1/pets', { key: tightKey })).status);
      expect(statuses).toEqual([200, 200, 429, 429]);
      expect((await api('/v1/pets', { key: roomyKey })).status).toBe(200);
      expect((await api('/v1/pets')).status).toBe(401);
    });
    const enterpriseKey = { plan: 'enterprise', caller: 'key' };
    expect(moved(decisions, { decision: 'allowed', ...enterpriseKey })).toBe(3);
    expect(moved(decisions, { decision: 'rate_limited', ...enterpriseKey })).toBe(2);
    expect(moved(decisions, { decision: 'temporarily_banned', ...enterpriseKey })).toBe(0);
    expect(moved(decisions, { decision: 'allowed', plan: 'free', caller: 'ip' })).toBe(1);
    expect(moved(requests, { operation: 'listPets', status_class: '4xx' })).toBe(3);
  });

  it('counts idempotent creates: created, replayed and key_reused', async () => {
    const moved = await across(async () => {
      const body = { name: 'Idem', categoryId: 2 };
      expect((await create(roomyKey, body, 'metrics-1')).status).toBe(201);
      const replay = await create(roomyKey, body, 'metrics-1');
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect((await create(roomyKey, { ...body, name: 'Other' }, 'metrics-1')).status).toBe(409);
      expect((await create(roomyKey, body)).status).toBe(201);
    });
    const idempotent = 'animal_store_idempotent_creates_total';
    expect(moved(idempotent, { outcome: 'created' })).toBe(1);
    expect(moved(idempotent, { outcome: 'replayed' })).toBe(1);
    expect(moved(idempotent, { outcome: 'key_reused' })).toBe(1);
  });

  // The runtime's metrics are Node's own (event loop, heap, GC).
  it('times database statements, reports readiness, the pool, and the runtime', {
    tags: ['node-runtime'],
  }, async () => {
    const moved = await across(async () => {
      expect((await api('/v1/pets?limit=5', { key: roomyKey })).status).toBe(200);
    });
    expect(moved('animal_store_db_query_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(moved('animal_store_db_query_errors_total')).toBe(0);

    const now = await scrape();
    expect(now('animal_store_ready')).toBe(1);
    expect(now('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(now('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    if (TEST_PROVIDER === 'postgresql') {
      expect(now('animal_store_db_pool_connections')).toBeGreaterThanOrEqual(1);
      expect(now('animal_store_db_pool_waiting')).toBe(0);
    } else {
      expect(now('animal_store_db_pool_connections')).toBe(0);
    }
  });

  it('is served only on the metrics listener: the public port answers /metrics with 404', async () => {
    const res = await api('/metrics');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found', status: 404 });
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('shows Redis going away: counters in process, and each request counted there', async () => {
    expect((await scrape())('animal_store_rate_limit_store', { store: 'redis' })).toBe(1);
    redis.kill('SIGKILL');
    await once(redis, 'exit');
    const moved = await across(async () => {
      for (let i = 0; i < 3; i += 1)
        expect((await api('/v1/pets', { key: roomyKey })).status).toBe(200);
    });
    expect(moved('animal_store_rate_limit_fallbacks_total')).toBe(3);
    const now = await scrape();
    expect(now('animal_store_rate_limit_store', { store: 'redis' })).toBe(0);
    expect(now('animal_store_rate_limit_store', { store: 'in_process' })).toBe(1);
  });
});

describe('W3C trace context', () => {
  const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

  async function logLineOf(requestId: string): Promise<Record<string, unknown>> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const line = logLines.find((text) => text.includes(requestId));
      if (line) return JSON.parse(line);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no log line for request ${requestId}`);
  }

  it("writes an incoming traceparent's trace id in the request's log line", async () => {
    const res = await api('/healthz', {
      headers: {
        traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01`,
        'x-request-id': 'trace-test-valid',
      },
    });
    expect(res.status).toBe(200);
    const line = await logLineOf('trace-test-valid');
    expect(line).toMatchObject({ traceId: TRACE_ID, req: { id: 'trace-test-valid' } });
  });

  it.each([
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01`],
    ['version ff', `ff-${TRACE_ID}-00f067aa0ba902b7-01`],
    ['a short parent id', `00-${TRACE_ID}-00f067aa0ba902-01`],
    ['trailing data on version 00', `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`],
  ])('ignores a malformed traceparent: %s', async (name, traceparent) => {
    const requestId = `trace-test-${name.replaceAll(/\W/g, '-')}`;
    const res = await api('/healthz', { headers: { traceparent, 'x-request-id': requestId } });
    expect(res.status).toBe(200);
    expect(await logLineOf(requestId)).not.toHaveProperty('traceId');
  });
});
