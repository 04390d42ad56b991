/**
 * The bare baselines answer the bench's requests as our server does: the same statuses, the
 * same headers of the API, bodies of the same shape. Each baseline and our server (on
 * PostgreSQL, rate limits in Redis) are seeded alike, then asked each scenario's requests and a
 * few that must fail. Needs PostgreSQL and Redis, as the server's suite does (TEST_POSTGRES_URL,
 * TEST_REDIS_URL), and the server built (turbo builds it before this package's tests).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@animal-store/local-ports';
import { type LiveServer, startLiveServer } from '@animal-store/server/testing';
import type { Request } from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deepPagePath, harvestPageLinks } from './page-links.js';
import { seededRandom } from './random-pages.js';
import { BENCH_ROOT } from './repository.js';
import { SCENARIO_NAMES, type ScenarioInputs, scenarioRequests } from './scenarios.js';
import { seedPets } from './seeding.js';
import { type RunningServer, startServer } from './server-process.js';

const POSTGRES_SERVER_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Enough pets for every listing to have a next page at 100 a page (200 sold). */
const PETS = 1_000;
/** Requests sent per scenario to each server. */
const REQUESTS_PER_SCENARIO = 6;

const RUN = randomBytes(4).toString('hex');
const KEY_PREFIX = `animal-store-bench-test-${RUN}:`;

async function onPostgresServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

interface Served {
  label: string;
  origin: string;
  apiKey: string;
  inputs: ScenarioInputs;
}

/** An answer reduced to what must be alike: status, the API's headers, the body's shape. */
interface Answer {
  status: number;
  headers: Record<string, boolean | string>;
  body: unknown;
}

/** The body's shape: every value's type, every array's length and its items' shapes. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = [...new Set(value.map((item) => JSON.stringify(shapeOf(item))))];
    return { length: value.length, items: items.map((item) => JSON.parse(item)) };
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, item]) => [key, key === 'code' ? item : shapeOf(item)]),
    );
  }
  return value === null ? 'null' : typeof value;
}

/** Headers whose presence must match; some whose value must too. */
const PRESENT = ['x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'location'];
const EQUAL = [
  'content-type',
  'idempotent-replayed',
  'www-authenticate',
  'deprecation',
  'x-ratelimit-limit',
];

async function ask(server: Served, request: Request, apiKey = server.apiKey): Promise<Answer> {
  const { method = 'GET', path = '/', headers = {}, body } = request;
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: { ...(headers as Record<string, string>), authorization: `Bearer ${apiKey}` },
    body: body as string | undefined,
  });
  const text = await response.text();
  const answerHeaders: Record<string, boolean | string> = {};
  for (const name of PRESENT) answerHeaders[name] = response.headers.has(name);
  for (const name of EQUAL) answerHeaders[name] = response.headers.get(name) ?? '(none)';
  const link = response.headers.get('link') ?? '';
  answerHeaders['link rel="next"'] = link.includes('rel="next"');
  return { status: response.status, headers: answerHeaders, body: shapeOf(JSON.parse(text)) };
}

/**
 * The scenario's next request, as autocannon would send it, its random draws (`mixed`'s kind of
 * request, `get`'s pet) made from `seed`, so that each server is asked the same.
 */
function nextRequest(requests: Request[], seed: number): Request {
  const [request = {}] = requests;
  const random = vi.spyOn(Math, 'random').mockImplementation(seededRandom(seed));
  try {
    const { setupRequest } = request;
    return typeof setupRequest === 'function' ? setupRequest({ ...request }, {}) : request;
  } finally {
    random.mockRestore();
  }
}

async function seeded(label: string, origin: string, apiKey: string): Promise<Served> {
  const server = { label, origin };
  const petIds = await seedPets(server, apiKey, PETS);
  const pageLinks = await harvestPageLinks(server, apiKey);
  return {
    label,
    origin,
    apiKey,
    inputs: { petIds, pageLinks, deepPagePath: deepPagePath(pageLinks, PETS / 2) },
  };
}

const cleanups: Array<() => Promise<unknown>> = [];
let ours: Served;
const baselines: Served[] = [];

async function startOurs(): Promise<Served> {
  const name = `animal_store_bench_test_ours_${RUN}`;
  cleanups.push(() => onPostgresServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  const { PUBLIC_URL: _publicUrl, ...inherited } = process.env;
  const live: LiveServer = await startLiveServer('bench-answers', {
    databaseUrl: databaseUrl(name),
    env: { ...inherited, REDIS_URL, REDIS_KEY_PREFIX: `${KEY_PREFIX}ours:` },
  });
  cleanups.push(() => live.stop());
  const apiKey = await live.createKey({
    plan: 'enterprise',
    perMinute: 1_000_000,
    perDay: 10_000_000,
  });
  return seeded('ours', live.baseUrl, apiKey);
}

/** The baseline from its sources (tsx), on PostgreSQL or SQLite, rate limits in Redis. */
async function startBare(database: 'postgres' | 'sqlite'): Promise<Served> {
  const folder = await mkdtemp(join(tmpdir(), 'animal-store-bench-test-'));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  let storage: Record<string, string>;
  if (database === 'postgres') {
    const name = `animal_store_bench_test_bare_${RUN}`;
    await onPostgresServer(`CREATE DATABASE "${name}"`);
    cleanups.push(() => onPostgresServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    storage = { DATABASE_URL: databaseUrl(name) };
  } else {
    storage = { DATABASE_PATH: join(folder, 'bench.db') };
  }
  // Rate limits in Redis on either database, as the bench runs the baseline.
  storage.REDIS_URL = REDIS_URL;
  storage.REDIS_KEY_PREFIX = `${KEY_PREFIX}bare-${database}:`;
  const port = await freePort();
  const keyFile = join(folder, 'key.json');
  const server: RunningServer = await startServer({
    label: `bare (${database})`,
    args: ['--import', 'tsx', join(BENCH_ROOT, 'src', 'baseline', 'main.ts')],
    cwd: BENCH_ROOT,
    port,
    stdoutFile: '/dev/null',
    env: {
      PATH: process.env.PATH,
      ...storage,
      PORT: String(port),
      HOST: '127.0.0.1',
      KEY_FILE: keyFile,
      KEY_PER_MINUTE: '1000000',
      KEY_PER_DAY: '10000000',
    },
  });
  cleanups.push(() => server.stop());
  const { key } = JSON.parse(await readFile(keyFile, 'utf8')) as { key: string };
  return seeded(server.label, server.origin, key);
}

beforeAll(async () => {
  const [started, ...bare] = await Promise.all([
    startOurs(),
    startBare('postgres'),
    startBare('sqlite'),
  ]);
  ours = started;
  baselines.push(...bare);
}, 180_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${KEY_PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}, 60_000);

describe.each(['postgres', 'sqlite'] as const)('the bare baseline on %s', (database) => {
  const bare = () => {
    const found = baselines.find((served) => served.label === `bare (${database})`);
    if (!found) throw new Error(`bare (${database}) did not start`);
    return found;
  };

  it.each(SCENARIO_NAMES)("answers %s's requests as our server does", async (scenario) => {
    const oursRequests = scenarioRequests(scenario, ours.inputs);
    const bareRequests = scenarioRequests(scenario, bare().inputs);
    for (let i = 0; i < REQUESTS_PER_SCENARIO; i++) {
      const expected = await ask(ours, nextRequest(oursRequests, i));
      const answer = await ask(bare(), nextRequest(bareRequests, i));
      expect(expected.status).toBeLessThan(300);
      expect(answer).toEqual(expected);
    }
  });

  it('counts its rate limits in Redis, as our server does, so that both wait on it', async () => {
    await ask(bare(), { path: '/v1/pets' });
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.keys(`${KEY_PREFIX}bare-${database}:rl:*`)).not.toEqual([]);
    } finally {
      await redis.quit();
    }
  });

  it('replays an idempotent create, and refuses its key with another body', async () => {
    const answers = async (served: Served) => {
      const key = `test-${randomBytes(6).toString('hex')}`;
      const create = (name: string): Request => ({
        method: 'POST',
        path: '/v1/pets',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ name, categoryId: 3, status: 'sold' }),
      });
      return [
        await ask(served, create('Once')),
        await ask(served, create('Once')),
        await ask(served, create('Another')),
      ];
    };
    const expected = await answers(ours);
    expect(expected.map((answer) => answer.status)).toEqual([201, 201, 409]);
    expect(expected[1]?.headers['idempotent-replayed']).toBe('true');
    expect(await answers(bare())).toEqual(expected);
  });

  it('refuses what our server refuses, with the same Error bodies', async () => {
    const requests: Array<[Request, string | undefined]> = [
      [{ path: '/v1/pets/999999' }, undefined],
      [{ path: '/v1/pets?limit=0' }, undefined],
      [{ path: '/v1/pets?cursor=12.AAAAAAAAAAAAAAAAAAAAAA' }, undefined],
      [
        {
          method: 'POST',
          path: '/v1/pets',
          headers: { 'content-type': 'application/json' },
          body: '{"name":""}',
        },
        undefined,
      ],
      [{ path: '/v1/pets' }, 'ask_not-a-key'],
    ];
    for (const [request, apiKey] of requests) {
      const expected = await ask(ours, request, apiKey);
      expect(expected.status).toBeGreaterThanOrEqual(400);
      expect(await ask(bare(), request, apiKey)).toEqual(expected);
    }
  });
});
