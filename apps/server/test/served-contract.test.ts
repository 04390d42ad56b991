/**
 * The server serves whatever contract it is given: here the fixture contract
 * (`@animal-store/fixture-contract`), the v1 contract with a second resource, `widgets`, and one
 * more pets operation, with handlers and stores of its own (support/widgets-api.ts) and no other
 * file changed. Every rule the pipeline owns holds for the new operations as it does for the
 * pets ones: each operation's examples (`@animal-store/fixture-contract/examples`: routing,
 * bodies read and refused, deprecation headers, a missing record as 404), and beside them 405
 * with `Allow`, CORS, authentication, rate limits, metrics and spans named by operation and
 * route, and responses checked against the contract. (The client's tests call the same
 * contract's operations, packages/client/test/api-client.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { runExample } from '@animal-store/contract/examples';
import { fixtureExampleCases } from '@animal-store/fixture-contract/examples';
import { createWidgetStore } from '@animal-store/fixture-contract/widget-store';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerMetrics } from '../src/operations/metrics.js';
import { startTracing } from '../src/tracing/start-tracing.js';
import type { Tracing } from '../src/tracing/tracing.js';
import { exampleTransport } from '../testing/example-transport.js';
import { TestClock } from '../testing/test-clock.js';
import { TEST_PROVIDER } from '../testing/test-database.js';
import { POSTGRES_SERVER_URL } from '../testing/test-services.js';
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from './support/otlp-receiver.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { widgetsApi } from './support/widgets-api.js';

const SHOP = 'https://shop.example';
/** 2026-03-10T12:00:30Z: mid-minute, so a burst of requests stays in one window. */
const NOW = Date.UTC(2026, 2, 10, 12, 0, 30);

let api: TestServer;
let receiver: OtlpReceiver;
let tracing: Tracing;
const widgets = createWidgetStore();
const metrics = createServerMetrics();

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // The SDK reads its settings from the environment, as the server's start does.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  tracing = await startTracing(pino({ level: 'silent' }), {
    databaseUrl: TEST_PROVIDER === 'postgresql' ? POSTGRES_SERVER_URL : 'file:served-contract.db',
    redisUrl: undefined,
  });
  api = await startTestServer({
    api: widgetsApi(widgets),
    corsOrigins: [SHOP],
    metrics,
    tracing,
    clock: new TestClock(NOW),
  });
});

afterAll(async () => {
  await api?.close();
  await tracing?.shutdown(1_000);
  await receiver?.close();
});

const createWidget = async (name: string, colour = 'blue') => {
  const res = await api.request('/v1/widgets', {
    method: 'POST',
    headers: { 'idempotency-key': randomUUID() },
    json: { name, colour },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; name: string; colour: string };
};

const patch = (path: string, body: string, contentType = 'application/json') =>
  api.request(path, { method: 'PATCH', headers: { 'content-type': contentType }, body });

describe.concurrent("the fixture contract's examples, v1's and its own operations'", () => {
  for (const example of fixtureExampleCases()) {
    it(example.title, async () => {
      const { problems } = await runExample(example, exampleTransport(api));
      expect(problems).toEqual([]);
    });
  }
});

describe('a contract with a second resource', () => {
  it("routes every operation of both resources, answering 404 and 405 with Allow from the contract's routes", async () => {
    const sprocket = await createWidget('Sprocket');
    expect(await (await api.request('/v1/widgets')).json()).toContainEqual(sprocket);
    expect(await (await api.request('/v1/widgets?colour=red')).json()).not.toContainEqual(sprocket);
    const changed = await patch(`/v1/widgets/${sprocket.id}`, '{"colour":"red"}');
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual({ ...sprocket, colour: 'red' });
    expect((await api.request(`/v1/widgets/${sprocket.id}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    expect((await api.request(`/v1/widgets/${sprocket.id}`)).status).toBe(404);

    const putList = await api.request('/v1/widgets', { method: 'PUT' });
    expect(putList.status).toBe(405);
    expect(putList.headers.get('allow')).toBe('GET, HEAD, POST');
    const putOne = await api.request('/v1/widgets/1', { method: 'PUT' });
    expect(putOne.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
    expect((await api.request('/v1/gadgets')).status).toBe(404);
    // The pets resource keeps its own routes beside the new one.
    expect((await api.request('/v1/pets/1', { method: 'PUT' })).headers.get('allow')).toBe(
      'GET, HEAD',
    );
    expect((await api.request('/v1/pets/1/name')).headers.get('allow')).toBe('PUT');
  });

  it('reads the body of every operation whose route declares one: 400, 413 and 415 as for pets', async () => {
    const { id } = await createWidget('Body');
    const malformed = await patch(`/v1/widgets/${id}`, '{"colour":');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: 'malformed_json' });
    const invalid = await patch(`/v1/widgets/${id}`, '{"colour":"pink","size":3}');
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).details.map(({ path }: { path: string }) => path)).toEqual([
      'colour',
      'size',
    ]);
    const large = await patch(`/v1/widgets/${id}`, JSON.stringify({ name: 'x'.repeat(17_000) }));
    expect(large.status).toBe(413);
    const text = await patch(`/v1/widgets/${id}`, 'colour=red', 'text/plain');
    expect(text.status).toBe(415);
    // Nothing refused changed the widget.
    expect(await (await api.request(`/v1/widgets/${id}`)).json()).toMatchObject({
      colour: 'blue',
    });
  });

  it("answers an allowed origin's preflight with the contract's methods and request headers, and exposes documented response headers", async () => {
    const preflight = await api.request('/v1/widgets/1', {
      method: 'OPTIONS',
      apiKey: null,
      headers: {
        origin: SHOP,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    const methods = preflight.headers.get('access-control-allow-methods')?.split(',');
    expect(methods).toEqual(expect.arrayContaining(['DELETE', 'GET', 'HEAD', 'PATCH', 'POST']));
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');

    const created = await api.request('/v1/widgets', {
      method: 'POST',
      headers: { origin: SHOP, 'idempotency-key': randomUUID() },
      json: { name: 'Cross-origin', colour: 'green' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-expose-headers')?.split(',')).toContain(
      'Widget-Location',
    );
  });

  it('asks for a key and counts every request against its plan', async () => {
    const anonymous = await api.request('/v1/widgets', { apiKey: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="animal-store"');

    const free = await api.createKey({ label: 'widgets on free', plan: 'free' });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i += 1) {
      statuses.push((await api.request('/v1/widgets', { apiKey: free })).status);
    }
    expect(statuses.slice(0, 60)).toEqual(Array(60).fill(200));
    const refused = await api.request('/v1/widgets', { apiKey: free });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('marks every response of a deprecated route, errors included, as its metadata says', async () => {
    const { id } = await createWidget('Old way');
    for (const path of [`/v1/widgets/${id}`, '/v1/widgets/999999']) {
      const res = await api.request(path);
      expect(res.headers.get('deprecation'), path).toBe('@1767225600');
      expect(res.headers.get('sunset'), path).toBe('Wed, 01 Jan 2031 00:00:00 GMT');
      expect(res.headers.get('link'), path).toBe('</v1/widgets>; rel="successor-version"');
    }
    expect((await api.request('/v1/widgets')).headers.get('deprecation')).toBeNull();
  });

  it('names metrics by the operation, and spans by the route, the database call by its statement', async () => {
    const { id } = await createWidget('Counted');
    const res = await patch(`/v1/widgets/${id}`, '{"name":"Counted twice"}');
    expect(res.status).toBe(200);
    expect(await metrics.registry.metrics()).toMatch(
      /animal_store_http_requests_total\{operation="updateWidget",status_class="2xx"\} [1-9]/,
    );

    const pet = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'Traced', categoryId: 1 },
    });
    const requestId = (
      await api.request(`/v1/pets/${((await pet.json()) as { id: number }).id}/name`, {
        method: 'PUT',
        json: { name: 'Traced again' },
      })
    ).headers.get('x-request-id');
    const serverSpan = () =>
      receiver.spans.find(
        (span) =>
          span.kind === SPAN_KIND.server &&
          span.attributes['animal_store.request_id'] === requestId,
      );
    await expect.poll(serverSpan, { timeout: 5_000 }).toBeDefined();
    const span = serverSpan();
    expect(span).toMatchObject({ name: 'PUT /v1/pets/{petId}/name' });
    expect(span?.attributes).toMatchObject({
      'http.route': '/v1/pets/{petId}/name',
      'animal_store.operation': 'renamePet',
    });
    const calls = () =>
      receiver.spans.filter((child) => child.parentSpanId === span?.spanId).map(({ name }) => name);
    await expect.poll(calls, { timeout: 5_000 }).toContain('UPDATE pets');
    expect(calls()).toContain('SELECT pets');
  });

  it('checks every response against the contract: a widget the contract refuses never leaves', async () => {
    widgets.plant({ id: 4242, name: '', colour: 'purple' });
    const res = await api.request('/v1/widgets/4242');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ code: 'internal_error', status: 500 });
    expect(text).not.toContain('purple');
  });

  it('serves the OpenAPI document of the contract it serves', async () => {
    const document = await (await api.request('/v1/openapi.json')).json();
    expect(Object.keys(document.paths['/v1/widgets/{widgetId}']).sort()).toEqual([
      'delete',
      'get',
      'patch',
    ]);
    expect(document.paths['/v1/pets/{petId}/name'].put.operationId).toBe('renamePet');
  });
});
