import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

describe('Paths and documents', () => {
  it('GET /healthz answers 200 {"status":"ok"} without a key', async () => {
    const res = await api.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database answers', async () => {
    const res = await api.request('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /v1/openapi.json is an OpenAPI 3 document generated from the contract', async () => {
    const res = await api.request('/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('1.0.0');
    const operations = Object.values<Record<string, Record<string, unknown>>>(doc.paths).flatMap(
      (methods) => Object.values(methods),
    );
    expect(operations.map((op) => op.operationId).sort()).toEqual([
      'createPet',
      'getPet',
      'listPets',
    ]);
    for (const op of operations) {
      expect(op.security).toEqual([{ bearerAuth: [] }]);
      expect(op['x-stability']).toBe(op.operationId === 'getPet' ? 'deprecated' : 'stable');
    }
    expect(doc.paths['/v1/pets/{petId}'].get.deprecated).toBe(true);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  it('GET /docs renders an interactive API reference of that document', async () => {
    const res = await api.request('/docs', { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain("url: '/v1/openapi.json'");
    // Every asset the page loads is served by this server: the reference works offline.
    const assets = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/assets/')).toBe(true);
      expect((await api.request(asset)).status, asset).toBe(200);
      // Its source map too, which a browser's developer tools ask for.
      expect((await api.request(`${asset}.map`)).status, `${asset}.map`).toBe(200);
    }
  });

  it('anything under /docs that is not there answers the JSON Error body not_found, like every unknown path', async () => {
    for (const path of [
      '/docs/assets/missing.js',
      '/docs/assets/..%2f..%2fpackage.json',
      '/docs/assets/',
      '/docs/assets/index.html',
    ]) {
      for (const method of ['GET', 'POST']) {
        const res = await api.request(path, { method });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(await res.json()).toMatchObject({ code: 'not_found', status: 404 });
      }
      const res = await api.request(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({ code: 'not_found', status: 404 });
      expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    }
  });

  it('GET /v1/store/orders is not part of v1 and answers 404 like any unknown route', async () => {
    for (const path of ['/v1/store/orders', '/v1/nothing-here', '/pets', '/v2/pets']) {
      const res = await api.request(path);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'not_found', status: 404 });
    }
  });

  it('a known path with a wrong method answers 405 method_not_allowed with an Allow header', async () => {
    const del = await api.request('/v1/pets', { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await del.json()).toMatchObject({ code: 'method_not_allowed', status: 405 });

    const put = await api.request('/v1/pets/1', { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');

    const post = await api.request('/healthz', { method: 'POST' });
    expect(post.status).toBe(405);
  });
});
