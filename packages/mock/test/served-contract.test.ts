/**
 * The mock serves whatever contract it is given, as the server does
 * (apps/server/test/served-contract.test.ts): here the fixture contract
 * (`@animal-store/fixture-contract`), the v1 contract with a second resource, `widgets`, and one
 * more pets operation, implemented in support/widgets-api.ts with no other file changed. Every
 * rule the mock's generic parts own holds for the new operations as for the pets ones: routing,
 * 404 and 405 with `Allow`, CORS, keys and rate limits, bodies read and refused, deprecation
 * headers, the document.
 */
import { formatReport, runConformance } from '@animal-store/conformance';
import { crossOriginRulesOf } from '@animal-store/contract';
import { fixtureContract } from '@animal-store/fixture-contract';
import { fixtureExampleCases } from '@animal-store/fixture-contract/examples';
import { beforeEach, describe, expect, it } from 'vitest';
import { createApiMock } from '../src/api-mock.js';
import { manualClock } from '../src/clock.js';
import { serveMock } from '../src/node-server.js';
import { widgetsApi } from './support/widgets-api.js';

const SHOP = 'https://shop.example';
const mock = createApiMock(widgetsApi, { clock: manualClock(), corsOrigins: [SHOP] });
beforeEach(() => mock.reset());

const API = 'http://mock.invalid';

function request(path: string, init: RequestInit & { key?: string | null } = {}) {
  const { key = mock.keys.business, headers, ...rest } = init;
  return mock.fetch(`${API}${path}`, {
    ...rest,
    headers: { ...(key !== null && { Authorization: `Bearer ${key}` }), ...headers },
  });
}

async function createWidget(name: string, colour = 'blue') {
  const answer = await request('/v1/widgets', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
    body: JSON.stringify({ name, colour }),
  });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { id: number; name: string; colour: string };
}

const patch = (path: string, body: string, contentType = 'application/json') =>
  request(path, { method: 'PATCH', headers: { 'Content-Type': contentType }, body });

describe('a contract with a second resource', () => {
  it("routes every operation of both resources, answering 404 and 405 with Allow from the contract's routes", async () => {
    const sprocket = await createWidget('Sprocket');
    expect(await (await request('/v1/widgets')).json()).toEqual([sprocket]);
    expect(await (await request('/v1/widgets?colour=red')).json()).toEqual([]);
    const changed = await patch(`/v1/widgets/${sprocket.id}`, '{"colour":"red"}');
    expect(await changed.json()).toEqual({ ...sprocket, colour: 'red' });
    const deleted = await request(`/v1/widgets/${sprocket.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect(await (await request(`/v1/widgets/${sprocket.id}`)).json()).toEqual({
      code: 'not_found',
      message: `No widget has id ${sprocket.id}.`,
      status: 404,
    });

    const putList = await request('/v1/widgets', { method: 'PUT' });
    expect(putList.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await putList.json()).toMatchObject({
      code: 'method_not_allowed',
      message: 'PUT is not allowed on /v1/widgets; use GET, HEAD, POST.',
    });
    const putOne = await request('/v1/widgets/1', { method: 'PUT' });
    expect(putOne.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
    expect(await (await request('/v1/gadgets')).json()).toMatchObject({
      code: 'not_found',
      message: 'No route matches /v1/gadgets.',
    });
    // The pets resource keeps its own routes beside the new one.
    const postName = await request('/v1/pets/1/name', { method: 'POST' });
    expect(postName.headers.get('allow')).toBe('PUT');
    expect((await request('/v1/pets/1', { method: 'PUT' })).headers.get('allow')).toBe('GET, HEAD');
  });

  it('runs the extra pets operation on the pets the others read, and a missing pet is 404', async () => {
    const renamed = await request('/v1/pets/1/name', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Crumpet"}',
    });
    expect(await renamed.json()).toMatchObject({ id: 1, name: 'Crumpet' });
    expect(await (await request('/v1/pets?limit=1')).json()).toMatchObject([{ name: 'Crumpet' }]);
    const missing = await request('/v1/pets/999999/name', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Nobody"}',
    });
    expect(await missing.json()).toEqual({
      code: 'not_found',
      message: 'No pet has id 999999.',
      status: 404,
    });
  });

  it('reads the body of every operation whose route declares one: 400, 413 and 415 as for pets', async () => {
    const { id } = await createWidget('Body');
    const malformed = await patch(`/v1/widgets/${id}`, '{"colour":');
    expect(await malformed.json()).toMatchObject({ code: 'malformed_json', status: 400 });
    const invalid = await patch(`/v1/widgets/${id}`, '{"colour":"pink","size":3}');
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).details.map(({ path }: { path: string }) => path)).toEqual([
      'colour',
      'size',
    ]);
    const large = await patch(`/v1/widgets/${id}`, JSON.stringify({ name: 'x'.repeat(17_000) }));
    expect(await large.json()).toMatchObject({ code: 'payload_too_large', status: 413 });
    const text = await patch(`/v1/widgets/${id}`, 'colour=red', 'text/plain');
    expect(await text.json()).toMatchObject({ code: 'unsupported_media_type', status: 415 });
    // Nothing refused changed the widget.
    expect(await (await request(`/v1/widgets/${id}`)).json()).toMatchObject({ colour: 'blue' });
  });

  it("answers an allowed origin's preflight for a method only this contract has with the contract's methods and headers, as the server's cors writes them", async () => {
    const rules = crossOriginRulesOf(fixtureContract);
    for (const method of ['PATCH', 'DELETE']) {
      const preflight = await request('/v1/widgets/1', {
        method: 'OPTIONS',
        key: null,
        headers: {
          Origin: SHOP,
          'Access-Control-Request-Method': method,
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
      expect(preflight.status, method).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(SHOP);
      expect(preflight.headers.get('access-control-allow-methods')).toBe(rules.methods.join(','));
      expect(preflight.headers.get('access-control-allow-methods')?.split(',')).toContain(method);
      expect(preflight.headers.get('access-control-allow-headers')).toBe(
        rules.allowedHeaders.join(','),
      );
    }

    const created = await request('/v1/widgets', {
      method: 'POST',
      headers: {
        Origin: SHOP,
        'Content-Type': 'application/json',
        'Idempotency-Key': crypto.randomUUID(),
      },
      body: JSON.stringify({ name: 'Cross-origin', colour: 'green' }),
    });
    expect(created.headers.get('widget-location')).toMatch(/^\/v1\/widgets\/\d+$/);
    expect(created.headers.get('access-control-expose-headers')).toBe(
      rules.exposedHeaders.join(','),
    );
    expect(created.headers.get('access-control-expose-headers')?.split(',')).toContain(
      'Widget-Location',
    );
  });

  it('asks for a key and counts every request against its plan', async () => {
    const anonymous = await request('/v1/widgets', { key: null });
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="animal-store"');
    const free = mock.keys.create({ plan: 'free' });
    const statuses: number[] = [];
    for (let sent = 0; sent < 61; sent += 1) {
      statuses.push((await request('/v1/widgets', { key: free })).status);
    }
    expect(statuses).toEqual([...Array(60).fill(200), 429]);
  });

  it('marks every answer of a deprecated route, errors included, as its metadata says', async () => {
    const { id } = await createWidget('Old way');
    for (const path of [`/v1/widgets/${id}`, '/v1/widgets/999999', '/v1/widgets/x']) {
      const answer = await request(path);
      expect(answer.headers.get('deprecation'), path).toBe('@1767225600');
      expect(answer.headers.get('sunset'), path).toBe('Wed, 01 Jan 2031 00:00:00 GMT');
      expect(answer.headers.get('link'), path).toBe('</v1/widgets>; rel="successor-version"');
    }
    expect((await request('/v1/widgets')).headers.get('deprecation')).toBeNull();
  });

  it('serves the OpenAPI document of the contract it serves', async () => {
    const document = await (await request('/v1/openapi.json')).json();
    expect(Object.keys(document.paths['/v1/widgets/{widgetId}']).sort()).toEqual([
      'delete',
      'get',
      'patch',
    ]);
  });

  it('serves it on a port as well, its Node server as unaware of the contract as its handler', async () => {
    const server = await serveMock(mock, { port: 0 });
    try {
      const renamed = await fetch(`${server.url}/v1/pets/2/name`, {
        method: 'PUT',
        headers: {
          Authorization: `Bearer ${mock.keys.pro}`,
          'Content-Type': 'application/json',
        },
        body: '{"name":"Served"}',
      });
      expect(await renamed.json()).toMatchObject({ id: 2, name: 'Served' });
    } finally {
      await server.close();
    }
  });

  it('starts again from its first state on reset: no widget made before is left', async () => {
    await createWidget('Forgotten');
    mock.reset();
    expect(await (await request('/v1/widgets')).json()).toEqual([]);
  });

  it("passes the conformance check's rules walking this contract, its examples, and a preflight of each of its methods", async () => {
    const server = await serveMock(mock, { port: 0 });
    try {
      const report = await runConformance({
        baseUrl: server.url,
        key: mock.keys.create({ perMinute: 10_000, perDay: 100_000 }),
        allowWrites: true,
        revokedKey: mock.keys.revoked,
        origin: SHOP,
        api: { contract: fixtureContract, examples: fixtureExampleCases() },
        sleep: async (ms) => mock.clock.advance(ms),
      });
      const failed = report.rules.filter(({ outcome }) => outcome.result === 'failed');
      expect(failed, formatReport(report)).toEqual([]);
      const rules = report.rules.map(({ rule }) => rule);
      expect(rules).toEqual(
        expect.arrayContaining([
          'renamePet: renames the pet, and answers it',
          'updateWidget: changes the fields sent, and answers the widget',
          'renamePet answers 401 without a key, with the challenge',
          expect.stringMatching(/^a preflight for PATCH /),
          expect.stringMatching(/^a preflight for DELETE /),
          expect.stringMatching(/^a preflight for PUT /),
          "getWidget is deprecated: its answers, errors included, carry Deprecation, Sunset and the successor's Link",
        ]),
      );
    } finally {
      await server.close();
    }
  });
});
