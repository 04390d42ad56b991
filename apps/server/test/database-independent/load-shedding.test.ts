/**
 * What is beyond the concurrency limit waits its turn, the lines of the subjects served in turn,
 * and is shed once it has waited too long: 503 with Retry-After, before any database or Redis
 * work, counted against no rate limit; the probes and CORS preflights never wait. The limit is
 * pinned small here (its learning is src/overload/concurrency-limit.test.ts's) and held full by
 * creates whose bodies have not all come yet, and waits are timed on the server's clock, which
 * stands still until the test moves it: what waits, and for how long, depends on no timing.
 */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerMetrics } from '../../src/operations/metrics.js';
import { parseResponses, type RawResponse, sendRaw, sendTogether } from '../support/raw-http.js';
import { startTestServer } from '../support/test-server.js';

interface LogLine {
  level: number;
  msg: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
}

/** A server whose limit is pinned to `limit`, with its metrics, log lines and statements seen. */
async function startPinned(limit: number, maxWaitMs: number) {
  const metrics = createServerMetrics();
  const logLines: LogLine[] = [];
  const seen = { statements: 0 };
  const lines = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const api = await startTestServer({
    concurrencyLimit: { initial: limit, min: limit, max: limit },
    maxWaitMs,
    corsOrigins: [SHOP],
    logger: pino({ level: 'info' }, lines),
    metrics,
    onQuery: () => {
      seen.statements += 1;
    },
  });
  const gauge = async (name: string) => {
    const text = await metrics.registry.metrics();
    return Number(new RegExp(`^animal_store_${name} (\\d+)$`, 'm').exec(text)?.[1]);
  };
  /** Waits until the gauge reads `value`: the server has taken in what the test sent. */
  const until = async (name: string, value: number) => {
    while ((await gauge(name)) !== value) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { api, metrics, logLines, seen, gauge, until };
}

type Pinned = Awaited<ReturnType<typeof startPinned>>;

/** The one browser origin the pinned servers allow. */
const SHOP = 'https://shop.example';

const preflight = [
  'OPTIONS /v1/pets HTTP/1.1',
  'Host: localhost',
  `Origin: ${SHOP}`,
  'Access-Control-Request-Method: POST',
  'Connection: close',
  '',
  '',
].join('\r\n');

const get = (path: string, key?: string) =>
  [
    `GET ${path} HTTP/1.1`,
    'Host: localhost',
    ...(key ? [`Authorization: Bearer ${key}`] : []),
    'Connection: close',
    '',
    '',
  ].join('\r\n');

/** The head of a create with `body`, which closes its connection; the body is sent apart. */
const createHead = (key: string, body: string) =>
  [
    'POST /v1/pets HTTP/1.1',
    'Host: localhost',
    `Authorization: Bearer ${key}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');

/** A create whose body is held back: once admitted, it holds its place until `release`. */
function heldCreate(port: number, key: string) {
  const body = JSON.stringify({ name: 'Held', categoryId: 1 });
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  const answer = new Promise<RawResponse | undefined>((resolve) =>
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks))[0])),
  );
  socket.write(createHead(key, body));
  return {
    answer,
    release: () => {
      socket.write(body);
      return answer;
    },
  };
}

/**
 * Takes `count` places in the server: creates whose bodies are held back, in the server until
 * `release` sends them. Their key is looked up first, by a HEAD of its own (the lines' test
 * reads the GETs served from the log), so that holding the places runs no statement: the held
 * creates are authenticated from the key cache (KEY_RECHECK_MS), not by a lookup that could
 * finish after a test has begun counting statements.
 */
async function holdPlaces({ api, until }: Pinned, count: number) {
  expect((await api.request('/v1/pets?limit=1', { method: 'HEAD' })).status).toBe(200);
  const { port } = api.server.address() as { port: number };
  const held = Array.from({ length: count }, () => heldCreate(port, api.apiKey));
  await until('requests_in_flight', count);
  return { release: () => Promise.all(held.map((create) => create.release())) };
}

/** Two clients with keys of their own: one to send most of the traffic, one a request. */
async function heavyAndLight({ api }: Pinned) {
  const heavy = await api.createKey({
    label: 'heavy',
    plan: 'enterprise',
    quota: { perMinute: 100_000, perDay: 100_000 },
  });
  const light = await api.createKey({ label: 'light', plan: 'business' });
  const { port } = api.server.address() as { port: number };
  return { heavy, light, port };
}

const shedOf = (answers: RawResponse[]) => answers.filter(({ status }) => status === 503);

describe('load shedding: what waited too long', () => {
  let pinned: Pinned;
  afterAll(() => pinned?.api.close());

  it('is answered 503 service_unavailable with Retry-After and the IP headers as they stand, before any database work, counted against no rate limit', async () => {
    pinned = await startPinned(2, 50);
    const { api, seen } = pinned;
    const free = await api.createKey({ label: 'free, shed', plan: 'free' });
    const places = await holdPlaces(pinned, 2);

    seen.statements = 0;
    const sent = sendTogether(
      api.server,
      Array.from({ length: 10 }, () => get('/v1/pets/1', free)),
    );
    // They wait; once the server's clock has moved past their 50 ms, the next sweep sheds them.
    await pinned.until('requests_waiting', 10);
    api.clock.advance(51);
    const answers = await sent;
    expect(seen.statements).toBe(0);
    expect(shedOf(answers)).toHaveLength(10);
    for (const answer of answers) {
      expect(JSON.parse(answer.body)).toEqual({
        code: 'service_unavailable',
        message: 'The server is busy. Try again after the seconds Retry-After gives.',
        status: 503,
      });
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers['x-ratelimit-limit']).toBe('60');
      expect(answer.headers['x-request-id']).toBeTruthy();
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    // From a page on an allowed origin: it may read the answer and what it carries.
    const fromShop = get('/v1/pets/1', free).replace(
      'Host: localhost',
      `Host: localhost\r\nOrigin: ${SHOP}`,
    );
    const shopSent = sendTogether(api.server, [fromShop]);
    await pinned.until('requests_waiting', 1);
    api.clock.advance(51);
    const [shopAnswer] = await shopSent;
    expect(shopAnswer?.status).toBe(503);
    expect(shopAnswer?.headers).toMatchObject({
      'access-control-allow-origin': SHOP,
      vary: 'Origin',
      'retry-after': '1',
    });
    expect(shopAnswer?.headers['access-control-expose-headers']).toContain('Retry-After');
    expect(seen.statements).toBe(0);

    expect((await places.release()).map((answer) => answer?.status)).toEqual([201, 201]);
    const after = await api.request('/v1/pets/1', { apiKey: free });
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('never happens to the probes and CORS preflights: they do not wait', async () => {
    const places = await holdPlaces(pinned, 2);
    const answers = await sendTogether(pinned.api.server, [
      ...Array.from({ length: 3 }, () => get('/healthz')),
      ...Array.from({ length: 3 }, () => get('/readyz')),
      ...Array.from({ length: 3 }, () => preflight),
    ]);
    expect(answers.map(({ status }) => status)).toEqual([...Array(6).fill(200), 204, 204, 204]);
    expect(answers.at(-1)?.headers['access-control-allow-origin']).toBe(SHOP);
    await places.release();
  });

  it('is counted by reason, beside the limit, and logged when shedding begins and ends, not for each request', async () => {
    const { metrics, logLines, api } = pinned;
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/animal_store_shed_requests_total\{reason="waited_too_long"\} 11\b/);
    expect(text).toMatch(/animal_store_concurrency_limit 2\b/);
    expect(text).toMatch(/animal_store_requests_in_flight 0\b/);
    expect(text).toMatch(/animal_store_requests_waiting 0\b/);

    // A second with nothing shed, then a request served: shedding is over.
    api.clock.advance(1_000);
    expect((await api.request('/v1/pets')).status).toBe(200);
    expect(logLines.filter(({ msg }) => msg.startsWith('over capacity'))).toHaveLength(1);
    expect(logLines.filter(({ msg }) => msg === 'no longer shedding').at(-1)).toMatchObject({
      shed: 11,
    });
    expect(logLines.filter(({ res }) => res?.statusCode === 503)).toEqual([]);
  });
});

describe('load shedding: the lines of the subjects are served in turn', () => {
  let pinned: Pinned;
  afterAll(() => pinned?.api.close());

  it('so one client sending most of the traffic does not starve another: its requests wait longest', async () => {
    pinned = await startPinned(1, 60_000);
    const { until, logLines } = pinned;
    const { heavy, light, port } = await heavyAndLight(pinned);
    const place = await holdPlaces(pinned, 1);

    const heavyAnswers = Array.from({ length: 6 }, () => sendRaw(port, get('/v1/pets', heavy)));
    await until('requests_waiting', 6);
    const lightAnswer = sendRaw(port, get('/v1/pets?limit=1', light));
    await until('requests_waiting', 7);
    await place.release();

    const answers = await Promise.all([...heavyAnswers, lightAnswer]);
    expect(answers.map(({ status }) => status)).toEqual(Array(7).fill(200));
    // First in, the heavy client's first request; then the light client's, not after the
    // heavy client's five others, as it would be in one line.
    const served = logLines.filter(({ req }) => req?.method === 'GET').map(({ req }) => req?.url);
    expect(served.slice(0, 2)).toEqual(['/v1/pets', '/v1/pets?limit=1']);
  });
});

describe('load shedding: when it must shed', () => {
  let pinned: Pinned;
  afterAll(() => pinned?.api.close());

  it('sheds the subject sending most, and serves the other, whose request came after all of its', async () => {
    pinned = await startPinned(1, 3_000);
    const { until } = pinned;
    const { heavy, light, port } = await heavyAndLight(pinned);
    const place = await holdPlaces(pinned, 1);

    // The heavy client's creates, each holding the one place while it is served.
    const heavyCreates = Array.from({ length: 6 }, () => heldCreate(port, heavy));
    await until('requests_waiting', 6);
    const lightAnswer = sendRaw(port, get('/v1/pets?limit=1', light));
    await until('requests_waiting', 7);

    await place.release();
    await until('requests_waiting', 6);
    // The heavy client's first create is served; then it is the light client's turn, not the
    // heavy client's next, as it would be in one line.
    await heavyCreates[0]?.release();
    expect((await lightAnswer).status).toBe(200);
    // Its second create holds the place; the four behind it wait until they have waited too long.
    await until('requests_waiting', 4);
    pinned.api.clock.advance(3_001);
    await until('requests_waiting', 0);
    await heavyCreates[1]?.release();

    const heavyAnswers = await Promise.all(heavyCreates.map((create) => create.answer));
    expect(heavyAnswers.map((answer) => answer?.status)).toEqual([201, 201, 503, 503, 503, 503]);
  });
});

describe('load shedding: a connection with two requests waiting', () => {
  let pinned: Pinned;
  afterAll(() => pinned?.api.close());

  it('is read no further until none waits: what a client pipelines into the line stays in the kernel, and is answered in order, none lost', async () => {
    pinned = await startPinned(1, 60_000);
    const { api, until, gauge } = pinned;
    const { port } = api.server.address() as { port: number };
    const place = await holdPlaces(pinned, 1);

    const keepAlive = (path: string) =>
      get(path, api.apiKey).replace('Connection: close', 'Connection: keep-alive');
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(keepAlive('/v1/pets/1'));
    await until('requests_waiting', 1);
    socket.write(keepAlive('/v1/pets?limit=1'));
    await until('requests_waiting', 2);
    // Forty-nine more behind these two, the last a create that closes the connection; then a
    // probe on a connection of its own, answered in a turn that would have read them had they
    // been read.
    const body = JSON.stringify({ name: 'Pipelined', categoryId: 1 });
    const create = createHead(api.apiKey, body) + body;
    socket.write(Array.from({ length: 48 }, () => keepAlive('/v1/pets?limit=1')).join('') + create);
    expect((await sendRaw(port, get('/healthz'))).status).toBe(200);
    expect(await gauge('requests_waiting')).toBe(2);

    await place.release();
    await closed;
    const answers = parseResponses(Buffer.concat(chunks));
    expect(answers.map(({ status }) => status)).toEqual([...Array(50).fill(200), 201]);
    const bodies = answers.map((answer) => JSON.parse(answer.body));
    // In order: the pet, the pages, the pet created.
    expect([bodies[0], bodies.at(-1)]).toMatchObject([{ id: 1 }, { name: 'Pipelined' }]);
    expect(bodies.slice(1, -1).every(Array.isArray)).toBe(true);
  });
});
