/**
 * Browser and header hygiene for a JSON API: responses are never sniffed, framed, cached or
 * run; `/docs` may load only its own assets; other origins may call the API only when allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { sendRaw } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
let withCors: TestServer;
const SHOP = 'https://shop.example.com';

beforeAll(async () => {
  api = await startTestServer();
  withCors = await startTestServer({ corsOrigins: [SHOP] });
});
afterAll(async () => {
  await api.close();
  await withCors.close();
});

/** The rest of helmet's headers, as it sets them by default. */
const HELMET_DEFAULTS = [
  ['cross-origin-opener-policy', 'same-origin'],
  ['cross-origin-resource-policy', 'same-origin'],
  ['origin-agent-cluster', '?1'],
  ['strict-transport-security', 'max-age=31536000; includeSubDomains'],
  ['x-dns-prefetch-control', 'off'],
  ['x-download-options', 'noopen'],
  ['x-frame-options', 'SAMEORIGIN'],
  ['x-permitted-cross-domain-policies', 'none'],
  ['x-xss-protection', '0'],
] as const;

describe('Security headers', () => {
  it('every API response, errors included, is nosniff, no-store, no-referrer, under a policy that allows nothing', async () => {
    for (const [path, status] of [
      ['/v1/pets', 200],
      ['/v1/nowhere', 404],
      ['/healthz', 200],
    ] as const) {
      const res = await api.request(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('cache-control'), path).toBe('no-store');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('content-security-policy'), path).toBe(
        "default-src 'none';frame-ancestors 'none'",
      );
      for (const [name, value] of HELMET_DEFAULTS) expect(res.headers.get(name), path).toBe(value);
      expect(res.headers.get('x-powered-by'), path).toBeNull();
    }
    const unauthorized = await api.request('/v1/pets', { apiKey: null });
    expect(unauthorized.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('/docs may run only its own scripts (and its one inline script, by hash), from no other origin', async () => {
    const res = await api.request('/docs');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/default-src 'self'/);
    expect(policy).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(policy).toMatch(/frame-ancestors 'none'/);
    expect(policy).not.toMatch(/https?:|\*|'unsafe-eval'/);
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  });
});

describe('CORS', () => {
  it('is off by default: no Access-Control-Allow-Origin, and a preflight is a 405 like any OPTIONS', async () => {
    const res = await api.request('/v1/pets', { headers: { origin: SHOP } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await api.request('/v1/pets', {
      method: 'OPTIONS',
      apiKey: null,
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(405);
  });

  it('OPTIONS * asks about the server as a whole, which names no path: 404 with an Error body', async () => {
    const res = await sendRaw(
      api.port,
      `OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'not_found', status: 404 });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('with CORS_ORIGINS, allowed origins get their preflights answered and read the headers they need', async () => {
    const preflight = await withCors.request('/v1/pets', {
      method: 'OPTIONS',
      apiKey: null,
      headers: {
        origin: SHOP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'idempotency-key',
    );

    const created = await withCors.request('/v1/pets', {
      method: 'POST',
      headers: { origin: SHOP },
      json: { name: 'From the shop', categoryId: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(SHOP);
    const exposed = (created.headers.get('access-control-expose-headers') ?? '').split(',');
    for (const header of [
      'Link',
      'Location',
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
      'Idempotent-Replayed',
      'Deprecation',
      'Sunset',
    ]) {
      expect(exposed).toContain(header);
    }

    const elsewhere = await withCors.request('/v1/pets', {
      headers: { origin: 'https://evil.example' },
    });
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a preflight is neither counted nor refused, and carries the IP headers as they stand; any other OPTIONS is a 405 like any wrong method', async () => {
    const preflight = (origin: string, method?: string) =>
      withCors.request('/v1/openapi.json', {
        method: 'OPTIONS',
        apiKey: null,
        headers: { origin, ...(method && { 'access-control-request-method': method }) },
      });
    const before = Number(
      (await withCors.request('/v1/openapi.json', { apiKey: null })).headers.get(
        'x-ratelimit-remaining',
      ),
    );
    for (let i = 0; i < 3; i += 1) {
      const answered = await preflight(SHOP, 'GET');
      expect(answered.status).toBe(204);
      expect(answered.headers.get('x-ratelimit-remaining')).toBe(String(before));
      expect(answered.headers.get('x-request-id')).toBeTruthy();
    }
    for (const refused of [await preflight('https://evil.example', 'GET'), await preflight(SHOP)]) {
      expect(refused.status).toBe(405);
      expect(await refused.json()).toMatchObject({ code: 'method_not_allowed' });
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      // The answer depends on Origin (an allowed one asking for a method gets 204): caches hear it.
      expect(refused.headers.get('vary')).toMatch(/\bOrigin\b/);
    }
    // The two refused ones were counted, as any request without a key is.
    const after = await withCors.request('/v1/openapi.json', { apiKey: null });
    expect(after.headers.get('x-ratelimit-remaining')).toBe(String(before - 3));
  });

  it('CORS_ORIGINS takes origins only: anything else stops the server with the problem named', () => {
    expect(loadConfig({ CORS_ORIGINS: `${SHOP}, http://localhost:5173` }).CORS_ORIGINS).toEqual([
      SHOP,
      'http://localhost:5173',
    ]);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://shop.example.com/path' })).toThrow(
      /CORS_ORIGINS/,
    );
    expect(() => loadConfig({ CORS_ORIGINS: 'shop.example.com' })).toThrow(/CORS_ORIGINS/);
  });
});
