// @module-tag node-runtime: Node's HTTP parser refuses some of these requests itself
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw } from '../support/raw-http.js';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

const JSON_UTF8 = 'application/json; charset=utf-8';

function post(
  body: string | Uint8Array,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  return api.request('/v1/pets', { method: 'POST', body, headers });
}

async function expectError(res: TestResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe(JSON_UTF8);
  const body = await res.json();
  expect(body).toMatchObject({ code, status });
  expect(typeof body.message).toBe('string');
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+|node_modules|Prisma|SQLITE/i);
  return body;
}

async function petCount() {
  const res = await api.request('/v1/pets?limit=100');
  return ((await res.json()) as unknown[]).length;
}

describe('Bodies and errors', () => {
  it('responses are application/json; charset=utf-8', async () => {
    const ok = await api.request('/v1/pets');
    expect(ok.headers.get('content-type')).toBe(JSON_UTF8);
    const created = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'A', categoryId: 1 },
    });
    expect(created.headers.get('content-type')).toBe(JSON_UTF8);
  });

  it('400 validation_failed: details name each invalid field once', async () => {
    const res = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: '', categoryId: 'x', colour: 'red' },
    });
    const body = await expectError(res, 400, 'validation_failed');
    const paths = body.details.map((detail: { path: string }) => detail.path).sort();
    expect(paths).toEqual(['categoryId', 'colour', 'name']);
    for (const detail of body.details) expect(typeof detail.message).toBe('string');
  });

  it('an unknown field named "" is reported under its own name, not as the body', async () => {
    const before = await petCount();
    const res = await post('{"name":"Rex","categoryId":1,"":true}');
    const body = await expectError(res, 400, 'validation_failed');
    expect(body.details).toEqual([{ path: '', message: 'is not a field of NewPet' }]);
    expect(await petCount()).toBe(before);
  });

  it('400 malformed_json: a byte order mark with no JSON after it', async () => {
    const before = await petCount();
    await expectError(await post(Buffer.from([0xef, 0xbb, 0xbf])), 400, 'malformed_json');
    expect(await petCount()).toBe(before);
  });

  it('400 malformed_json: the body is not parseable JSON', async () => {
    const before = await petCount();
    await expectError(await post('{"name": "Rex", '), 400, 'malformed_json');
    await expectError(await post('{name: Rex}'), 400, 'malformed_json');
    expect(await petCount()).toBe(before);
  });

  it('400 malformed_json: the body is not valid UTF-8', async () => {
    const before = await petCount();
    const invalid = Buffer.concat([
      Buffer.from('{"name":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('","categoryId":1}'),
    ]);
    await expectError(await post(invalid), 400, 'malformed_json');
    expect(await petCount()).toBe(before);
  });

  it('a JSON value that is not an object is validation_failed, not malformed', async () => {
    for (const body of ['123', '"Rex"', 'null', '[]']) {
      await expectError(await post(body), 400, 'validation_failed');
    }
  });

  it('413 payload_too_large: body over 16 KiB', async () => {
    const before = await petCount();
    const padded = JSON.stringify({ name: 'Rex', categoryId: 1, pad: 'x'.repeat(16 * 1024) });
    await expectError(await post(padded), 413, 'payload_too_large');
    expect(await petCount()).toBe(before);
  });

  it('a body of exactly 16 KiB is read (and judged by the contract)', async () => {
    const base = JSON.stringify({ name: 'Rex', categoryId: 1, pad: '' });
    const exact = JSON.stringify({
      name: 'Rex',
      categoryId: 1,
      pad: 'x'.repeat(16 * 1024 - base.length),
    });
    expect(Buffer.byteLength(exact)).toBe(16 * 1024);
    await expectError(await post(exact), 400, 'validation_failed');
  });

  it('415 unsupported_media_type: a non-empty body without Content-Type: application/json', async () => {
    const before = await petCount();
    const body = JSON.stringify({ name: 'Rex', categoryId: 1 });
    await expectError(
      await post(body, { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    await expectError(
      await post(body, { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'unsupported_media_type',
    );
    await expectError(
      await post(body, { 'content-type': 'application/json; charset=latin1' }),
      415,
      'unsupported_media_type',
    );
    const raw = await sendRaw(
      api.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.apiKey}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(raw.status).toBe(415);
    expect(await petCount()).toBe(before);
  });

  it('an empty body is validation_failed', async () => {
    await expectError(await api.request('/v1/pets', { method: 'POST' }), 400, 'validation_failed');
    await expectError(await post(''), 400, 'validation_failed');
  });

  it('431 headers_too_large: request headers over 16 KiB, with Error body and X-Request-Id, then the connection closes', async () => {
    const res = await sendRaw(
      api.port,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toBe(JSON_UTF8);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toMatchObject({ code: 'headers_too_large', status: 431 });
  });

  it('400 malformed_request: the HTTP parser rejects the request, or reads it in a version other than HTTP/1.x', async () => {
    const requests = [
      'NOT A REQUEST\r\n\r\n',
      'GET /v1/pets HTTP/9.9\r\nHost: x\r\n\r\n',
      // Node's parser reads these two request lines; the server speaks neither version.
      'GET /v1/pets HTTP/2.0\r\nHost: x\r\n\r\n',
      'GET /healthz HTTP/0.9\r\nHost: x\r\n\r\n',
      'FOO /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/pe ts HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/pets\x01 HTTP/1.1\r\nHost: x\r\n\r\n',
    ];
    for (const request of requests) {
      const res = await sendRaw(api.port, request);
      expect(res.status, JSON.stringify(request)).toBe(400);
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.headers.connection).toBe('close');
      expect(JSON.parse(res.body)).toMatchObject({ code: 'malformed_request', status: 400 });
    }
  });

  it('every error body has code, message and status equal to the HTTP status', async () => {
    const cases: Array<[Promise<TestResponse>, number]> = [
      [api.request('/nowhere'), 404],
      [api.request('/v1/pets', { method: 'PATCH' }), 405],
      [api.request('/v1/pets?limit=0'), 400],
      [post('{'), 400],
    ];
    for (const [pending, status] of cases) {
      const res = await pending;
      const body = await res.json();
      expect(body.status).toBe(status);
      expect(res.status).toBe(status);
      expect(Object.keys(body).sort()).toEqual(
        expect.arrayContaining(['code', 'message', 'status']),
      );
    }
  });
});
