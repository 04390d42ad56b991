/**
 * Traces, as operators get them: the server started as users start it, with OpenTelemetry's
 * standard variables naming an OTLP/HTTP receiver of the suite's own (support/otlp-receiver.ts),
 * once per protocol, on the suite's database and the shared Redis: the database's calls are
 * spans of each request. What tracing must never do is database-independent/tracing-does-no-harm.test.ts's.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createPrismaClient, type DatabaseClient } from '@animal-store/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../src/keys/api-key-store.js';
import {
  dropScratchDatabases,
  scratchDatabaseUrl,
  TEST_PROVIDER,
} from '../testing/test-database.js';
import { SHARED_REDIS_URL } from '../testing/test-services.js';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND,
  STATUS_CODE,
  startOtlpReceiver,
} from './support/otlp-receiver.js';
import { sendTogetherTo } from './support/raw-http.js';
import {
  createRoomyKey,
  killLeftoverServers,
  logLinesOf,
  type ServerProcess,
  startServerProcess,
} from './support/server-process.js';

afterAll(async () => {
  killLeftoverServers();
  await dropScratchDatabases();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A caller's `traceparent`: a fresh trace and span, sampled or not. */
function callerContext(sampled: boolean) {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-${sampled ? '01' : '00'}` };
}

const spansOfTrace = (receiver: OtlpReceiver, traceId: string) =>
  receiver.spans.filter((span) => span.traceId === traceId);

/** The server span of the request `requestId`, once it has been exported. */
async function serverSpanOf(receiver: OtlpReceiver, requestId: string): Promise<ReceivedSpan> {
  const find = () =>
    receiver.spans.find(
      (span) =>
        span.kind === SPAN_KIND.server && span.attributes['animal_store.request_id'] === requestId,
    );
  await expect.poll(find, { timeout: 10_000 }).toBeDefined();
  return find() as ReceivedSpan;
}

const childrenOf = (receiver: OtlpReceiver, parent: ReceivedSpan) =>
  receiver.spans.filter(
    (span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId,
  );

/** The database calls of a trace on `table`. */
const callsOn = (spans: ReceivedSpan[], table: string) =>
  spans.filter((span) => span.attributes['db.collection.name'] === table);

describe.each(['http/protobuf', 'http/json'] as const)('Traces exported with %s', (protocol) => {
  let receiver: OtlpReceiver;
  let server: ServerProcess;
  let databaseUrl: string;
  /**
   * The test's own client of the server's database, made and used before any request: its first
   * query loads Prisma's query compiler synchronously, and a test whose event loop stalls past the server's
   * keep-alive deadline would send its next request on a connection the server has closed.
   */
  let db: DatabaseClient;
  let key: string;
  let logLines: Array<Record<string, unknown>>;
  /** Values sent in requests that no span may carry: what statements bind, keys, tokens. */
  const secrets: string[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    databaseUrl = await scratchDatabaseUrl();
    key = await createRoomyKey(databaseUrl);
    secrets.push(key);
    // After the key command, which creates the database.
    db = createPrismaClient(databaseUrl);
    await db.$queryRawUnsafe('SELECT 1');
    server = await startServerProcess(
      {
        DATABASE_URL: databaseUrl,
        REDIS_URL: SHARED_REDIS_URL,
        REDIS_KEY_PREFIX: `test:${randomUUID()}:`,
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
        // Batches leave at once rather than every 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
      { stdout: 'pipe' },
    );
    logLines = logLinesOf(server);
  });

  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    await receiver.close();
    await db.$disconnect();
  });

  const send = (path: string, init: RequestInit & { traceparent?: string } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${key}`);
    if (init.traceparent) headers.set('traceparent', init.traceparent);
    return fetch(`${server.baseUrl}${path}`, { ...init, headers });
  };

  const createPet = async (name: string) => {
    secrets.push(name);
    const res = await send('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, categoryId: 1 }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: number }).id;
  };

  const logLineOf = async (requestId: string) => {
    const find = () =>
      logLines.find((line) => (line.req as { id?: string } | undefined)?.id === requestId);
    await expect.poll(find, { timeout: 5_000 }).toBeDefined();
    return find() as Record<string, unknown>;
  };

  it("continues the caller's trace: a server span under the caller's, named by its route, with Redis and the database beneath", async () => {
    const petId = await createPet(`traced ${randomUUID()}`);
    const caller = callerContext(true);
    const res = await send(`/v1/pets/${petId}`, { traceparent: caller.traceparent });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id') as string;

    const span = await serverSpanOf(receiver, requestId);
    expect(span).toMatchObject({
      traceId: caller.traceId,
      parentSpanId: caller.spanId,
      name: 'GET /v1/pets/{petId}',
      status: { code: STATUS_CODE.unset },
    });
    expect(span.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/v1/pets/{petId}',
      'url.path': `/v1/pets/${petId}`,
      'url.scheme': 'http',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'client.address': '127.0.0.1',
      'animal_store.operation': 'getPet',
      'animal_store.request_id': requestId,
      'animal_store.rate_limit.outcome': 'allowed',
      'animal_store.rate_limit.plan': 'enterprise',
    });
    expect(span.resource).toMatchObject({
      'service.name': 'animal-store',
      'deployment.environment.name': 'test',
    });

    const redisOf = () =>
      childrenOf(receiver, span).find((child) => child.attributes['db.system.name'] === 'redis');
    const readOf = () => callsOn(childrenOf(receiver, span), 'pets')[0];
    await expect.poll(() => redisOf() && readOf(), { timeout: 5_000 }).toBeDefined();
    const [redis, read] = [redisOf(), readOf()];
    expect(redis).toMatchObject({
      name: 'EVALSHA',
      kind: SPAN_KIND.client,
      attributes: { 'db.operation.name': 'EVALSHA', 'animal_store.batch.size': 1 },
    });
    expect(read).toMatchObject({
      name: 'SELECT pets',
      kind: SPAN_KIND.client,
      attributes: {
        'db.system.name': TEST_PROVIDER,
        'db.operation.name': 'SELECT',
        'db.collection.name': 'pets',
        'db.query.summary': 'SELECT pets',
        'animal_store.batch.size': 1,
      },
    });
    // Within the server span, give or take the clocks: the SDK dates the server span from one
    // reading of the wall clock (to the millisecond) and a call's span from another, each then
    // advanced by the monotonic clock, so the two may disagree by a millisecond or more (seen:
    // 1.3 ms on a loaded machine). A few milliseconds still catch a span dated wrongly.
    const slack = 5_000_000n;
    for (const child of [redis, read] as ReceivedSpan[]) {
      expect(child.startTimeUnixNano + slack).toBeGreaterThanOrEqual(span.startTimeUnixNano);
      expect(child.endTimeUnixNano).toBeLessThanOrEqual(span.endTimeUnixNano + slack);
    }
    expect((await logLineOf(requestId)).traceId).toBe(caller.traceId);
  });

  it('begins a trace for a request that brings none, and logs its id', async () => {
    const res = await send('/v1/pets?limit=5&status=available');
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id') as string;
    const span = await serverSpanOf(receiver, requestId);
    expect(span).toMatchObject({ parentSpanId: '', name: 'GET /v1/pets' });
    expect(span.attributes).toMatchObject({
      'http.route': '/v1/pets',
      'url.query': 'limit=5&status=available',
      'animal_store.operation': 'listPets',
    });
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect((await logLineOf(requestId)).traceId).toBe(span.traceId);
  });

  it("follows the caller's sampling: a trace the caller did not sample is not recorded", async () => {
    const unsampled = callerContext(false);
    const res = await send('/v1/pets', { traceparent: unsampled.traceparent });
    expect(res.status).toBe(200);
    const unsampledId = res.headers.get('x-request-id') as string;
    // A sampled request after it: once its span is in, the earlier one's would be too.
    const later = await send('/v1/pets', { traceparent: callerContext(true).traceparent });
    await serverSpanOf(receiver, later.headers.get('x-request-id') as string);
    expect(spansOfTrace(receiver, unsampled.traceId)).toEqual([]);
    expect((await logLineOf(unsampledId)).traceId).toBe(unsampled.traceId);
  });

  it('names requests without a route by their method alone', async () => {
    const res = await send('/v1/nowhere');
    expect(res.status).toBe(404);
    const span = await serverSpanOf(receiver, res.headers.get('x-request-id') as string);
    expect(span.name).toBe('GET');
    expect(span.attributes['http.route']).toBeUndefined();
    expect(span.attributes).toMatchObject({
      'http.response.status_code': 404,
      'animal_store.operation': 'unmatched',
    });
    // A client's mistake is not the server's failure.
    expect(span.status.code).toBe(STATUS_CODE.unset);
  });

  it("records an API key's lookup in the trace of the request that made it, and no key in it", async () => {
    // A key the server has not seen: the first request with it looks it up in the database.
    const freshKey = await createRoomyKey(databaseUrl);
    secrets.push(freshKey);
    const res = await fetch(`${server.baseUrl}/v1/pets?limit=1`, {
      headers: { authorization: `Bearer ${freshKey}` },
    });
    expect(res.status).toBe(200);
    const span = await serverSpanOf(receiver, res.headers.get('x-request-id') as string);
    const lookupOf = () => callsOn(childrenOf(receiver, span), 'api_keys')[0];
    await expect.poll(lookupOf, { timeout: 5_000 }).toBeDefined();
    expect(lookupOf()).toMatchObject({
      name: 'SELECT api_keys',
      kind: SPAN_KIND.client,
      attributes: {
        'db.system.name': TEST_PROVIDER,
        'db.operation.name': 'SELECT',
        'db.query.summary': 'SELECT api_keys',
        'animal_store.batch.size': 1,
      },
    });
    const exported = JSON.stringify([span.attributes, lookupOf()?.attributes]);
    expect(exported).not.toContain(freshKey);
    expect(exported).not.toContain(hashSecret(freshKey));
  });

  it('shows each request of a turn the database call it shared, with how many shared it', async () => {
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, index) => createPet(`shared ${index} ${randomUUID()}`)),
    );
    const getters = ids.map((id) => ({ id, ...callerContext(true) }));
    const port = Number(new URL(server.baseUrl).port);
    const raw = (method: string, path: string, traceparent: string, body?: string) =>
      [
        `${method} ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        `Authorization: Bearer ${key}`,
        `traceparent: ${traceparent}`,
        'Connection: close',
        ...(body === undefined
          ? []
          : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`]),
        '',
        body ?? '',
      ].join('\r\n');
    const gets = await sendTogetherTo(
      port,
      getters.map(({ id, traceparent }) => raw('GET', `/v1/pets/${id}`, traceparent)),
    );
    expect(gets.map(({ status }) => status)).toEqual(getters.map(() => 200));
    const creators = ids.map(() => callerContext(true));
    const creates = await sendTogetherTo(
      port,
      creators.map(({ traceparent }, index) => {
        const name = `created together ${index} ${randomUUID()}`;
        secrets.push(name);
        return raw('POST', '/v1/pets', traceparent, JSON.stringify({ name, categoryId: 2 }));
      }),
    );
    expect(creates.map(({ status }) => status)).toEqual(creators.map(() => 201));

    for (const [group, operation] of [
      [getters, 'SELECT'],
      [creators, 'INSERT'],
    ] as const) {
      const callOf = (traceId: string) =>
        callsOn(spansOfTrace(receiver, traceId), 'pets').filter(
          (span) => span.attributes['db.operation.name'] === operation,
        );
      await expect
        .poll(() => group.every(({ traceId }) => callOf(traceId).length === 1), {
          timeout: 10_000,
        })
        .toBe(true);
      // One call is the same start and end in every trace that shared it: as many traces show
      // it as its batch size says, so none shows a request waiting alone for it.
      const byCall = new Map<string, ReceivedSpan[]>();
      for (const { traceId } of group) {
        const [span] = callOf(traceId) as [ReceivedSpan];
        const call = `${span.startTimeUnixNano} ${span.endTimeUnixNano}`;
        byCall.set(call, [...(byCall.get(call) ?? []), span]);
      }
      for (const shared of byCall.values()) {
        const sizes = shared.map((span) => span.attributes['animal_store.batch.size']);
        expect(sizes).toEqual(shared.map(() => shared.length));
      }
      // Sent together, they were read (or inserted) by fewer calls than requests.
      expect(byCall.size).toBeLessThan(group.length);
    }
  });

  it('marks a 5xx and the database call that failed under it with an error status and an exception event', async () => {
    try {
      await db.$executeRawUnsafe('ALTER TABLE pets RENAME TO pets_away');
      const res = await send('/v1/pets/1');
      expect(res.status).toBe(503);
      const span = await serverSpanOf(receiver, res.headers.get('x-request-id') as string);
      expect(span.status.code).toBe(STATUS_CODE.error);
      expect(span.attributes['error.type']).toBe('503');
      expect(span.events.map(({ name }) => name)).toContain('exception');

      const readOf = () => callsOn(childrenOf(receiver, span), 'pets')[0];
      await expect.poll(readOf, { timeout: 5_000 }).toBeDefined();
      const read = readOf() as ReceivedSpan;
      expect(read.status.code).toBe(STATUS_CODE.error);
      expect(read.attributes['error.type']).toEqual(expect.any(String));
      const [exception] = read.events;
      expect(exception).toMatchObject({
        name: 'exception',
        attributes: { 'exception.type': expect.any(String) },
      });
      // A driver's message can quote a bound value: no exception event carries one.
      for (const { attributes } of [...span.events, ...read.events]) {
        expect(attributes).not.toHaveProperty('exception.message');
      }
    } finally {
      await db.$executeRawUnsafe('ALTER TABLE pets_away RENAME TO pets');
    }
  });

  it('exports every span in the configured protocol, and no key, token or bound value in any', async () => {
    const idempotencyKey = randomUUID();
    secrets.push(idempotencyKey);
    const res = await send('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify({ name: `idempotent ${randomUUID()}`, categoryId: 3 }),
    });
    expect(res.status).toBe(201);
    const span = await serverSpanOf(receiver, res.headers.get('x-request-id') as string);
    // The idempotent create's one call: its key claimed and the pet inserted. The API key's own
    // lookup is left out: it is made again under whichever request comes once KEY_RECHECK_MS
    // has passed, which on a slow machine can be this one.
    const callNames = () =>
      childrenOf(receiver, span)
        .filter((child) => child.attributes['db.system.name'] === TEST_PROVIDER)
        .map(({ name }) => name)
        .filter((name) => name !== 'SELECT api_keys')
        .sort();
    await expect.poll(callNames, { timeout: 5_000 }).toEqual(['INSERT pets']);

    const expected = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
    expect(new Set(receiver.contentTypes)).toEqual(new Set([expected]));
    const exported = Buffer.concat(receiver.bodies);
    for (const secret of [...secrets, 'Bearer', 'authorization']) {
      expect(exported.includes(secret), secret).toBe(false);
    }
  });
});
