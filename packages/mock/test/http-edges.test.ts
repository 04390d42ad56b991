/**
 * The Node server at the edges of HTTP, and what the handler says there (docs/interface.md), where
 * raw-requests.test.ts cannot compare it with the server: keys, bodies streamed past the limit,
 * what is counted, a public URL, the handler's own bodies.
 */
import { request as httpRequest } from 'node:http';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMock, type MockServer, manualClock, startMockServer } from '../src/index.js';
import { sendRaw } from './support/raw-http.js';

let server: MockServer;

beforeAll(async () => {
  server = await startMockServer({
    port: 0,
    clock: manualClock(),
    corsOrigins: ['https://app.example'],
  });
});

afterAll(async () => {
  await server.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request as sent, repeated headers and unusual targets included, which fetch cannot send. */
function raw(
  method: string,
  path: string,
  rawHeaders: string[],
  body?: Buffer | (() => AsyncIterable<Buffer>),
): Promise<RawAnswer> {
  const url = new URL(server.url);
  // Node adds no Host of its own to headers given as a list.
  const sent = rawHeaders.some((name, index) => index % 2 === 0 && name.toLowerCase() === 'host')
    ? rawHeaders
    : ['Host', url.host, ...rawHeaders];
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers: sent },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk) => {
          text += chunk;
        });
        answer.on('end', () =>
          resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: text }),
        );
      },
    );
    outgoing.on('error', reject);
    if (typeof body === 'function') {
      void (async () => {
        for await (const chunk of body()) {
          if (!outgoing.write(chunk)) await new Promise((ready) => outgoing.once('drain', ready));
        }
        outgoing.end();
      })().catch(() => {});
    } else {
      outgoing.end(body);
    }
  });
}

const auth = () => ['Authorization', `Bearer ${server.mock.keys.pro}`];

test("each key, demo or made, is in the interface's format: ask_, 43 base64url characters and their CRC-32", () => {
  const { free, pro, business, enterprise, revoked, create } = server.mock.keys;
  const made = [create({ plan: 'free' }), create({ perMinute: 1, perDay: 1 })];
  for (const key of [free, pro, business, enterprise, revoked, ...made]) {
    const [, random = '', checksum] = /^ask_([A-Za-z0-9_-]{43})([A-Za-z0-9_-]{6})$/.exec(key) ?? [];
    const expected = Buffer.alloc(4);
    expected.writeUInt32BE(crc32(random));
    expect(checksum, key).toBe(expected.toString('base64url'));
  }
});

test('a streamed body over 16 KiB is 413, and one of exactly 16 KiB is read', async () => {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const answer = await raw(
    'POST',
    '/v1/pets',
    [...auth(), 'Content-Type', 'application/json', 'Transfer-Encoding', 'chunked'],
    async function* () {
      // Far more than the limit: only what passes it is pulled before the 413.
      for (let sent = 0; sent < 64; sent++) yield chunk;
    },
  );
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large', status: 413 });

  const exact = `{"name":"${'x'.repeat(16 * 1024 - 30)}","categoryId":1}`.padEnd(16 * 1024, ' ');
  const read = await raw(
    'POST',
    '/v1/pets',
    [...auth(), 'Content-Type', 'application/json'],
    Buffer.from(exact),
  );
  // Exactly 16 KiB is read: the name is then what is refused (over 100 characters).
  expect(read.status).toBe(400);
  expect(JSON.parse(read.body).details).toEqual([
    { path: 'name', message: 'must be at most 100 characters' },
  ]);
});

test('a client that ends its side of the connection after its request still gets the answer, however late', async () => {
  // An answer later than the client's end, as a server's database write makes it.
  server.mock.misbehave({ times: 1, kind: 'slow', delayMs: 100 });
  const { host, port } = new URL(server.url);
  const body = JSON.stringify({ name: 'Half-closed', categoryId: 1 });
  const [answer] = await sendRaw(
    Number(port),
    [
      'POST /v1/pets HTTP/1.1',
      `Host: ${host}`,
      `Authorization: Bearer ${server.mock.keys.pro}`,
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
      '',
      body,
    ].join('\r\n'),
    { halfClose: true },
  );
  expect(answer?.status).toBe(201);
});

test('HEAD answers as GET, without a body; the probes answer without a key and are never counted', async () => {
  const head = await raw('HEAD', '/v1/pets', auth());
  expect(head.status).toBe(200);
  expect(head.body).toBe('');
  const before = await raw('GET', '/healthz', []);
  await raw('GET', '/readyz', []);
  const after = await raw('GET', '/healthz', []);
  expect(before.status).toBe(200);
  expect(JSON.parse(after.body)).toEqual({ status: 'ok' });
  expect(after.headers['x-ratelimit-remaining']).toBe(before.headers['x-ratelimit-remaining']);
});

test('a CORS preflight from an allowed origin is answered 204, uncounted; answers to it expose the headers; other origins get neither', async () => {
  const preflight = await raw('OPTIONS', '/v1/pets', [
    'Origin',
    'https://app.example',
    'Access-Control-Request-Method',
    'POST',
  ]);
  expect(preflight.status).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
  const answer = await raw('GET', '/v1/pets', [...auth(), 'Origin', 'https://app.example']);
  expect(answer.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
  const options = await raw('OPTIONS', '/v1/pets', []);
  expect(options.status).toBe(405);
  // From an origin it was not told to allow: no preflight, and nothing readable.
  const other = await raw('OPTIONS', '/v1/pets', [
    'Origin',
    'https://elsewhere.example',
    'Access-Control-Request-Method',
    'POST',
  ]);
  expect(other.status).toBe(405);
  expect(other.headers['access-control-allow-origin']).toBeUndefined();
  expect((await raw('OPTIONS', '*', [])).status).toBe(404);
});

test('with a public URL, Link URLs and the OpenAPI document name it', async () => {
  const mock = createMock({ publicUrl: 'https://api.animal-store.example' });
  const headers = { Authorization: `Bearer ${mock.keys.pro}` };
  const page = await mock.fetch('http://127.0.0.1/v1/pets?limit=1', { headers });
  expect(page.headers.get('link')).toMatch(/^<https:\/\/api\.animal-store\.example\/v1\/pets\?/);
  const document = await (await mock.fetch('http://127.0.0.1/v1/openapi.json')).json();
  expect(document.servers).toEqual([
    expect.objectContaining({ url: 'https://api.animal-store.example' }),
  ]);
});

test('a compressed body is read once decoded; another encoding is 415', async () => {
  const mock = createMock({ seed: false });
  const body = new Blob([JSON.stringify({ name: 'Zipped', categoryId: 1 })])
    .stream()
    .pipeThrough(new CompressionStream('gzip'));
  const headers = {
    Authorization: `Bearer ${mock.keys.pro}`,
    'Content-Type': 'application/json',
  };
  const created = await mock.fetch('http://mock/v1/pets', {
    method: 'POST',
    headers: { ...headers, 'Content-Encoding': 'gzip' },
    body,
    duplex: 'half',
  } as RequestInit);
  expect(await created.json()).toEqual({
    id: 1,
    name: 'Zipped',
    categoryId: 1,
    status: 'available',
  });
  const refused = await mock.fetch('http://mock/v1/pets', {
    method: 'POST',
    headers: { ...headers, 'Content-Encoding': 'br' },
    body: '{}',
  });
  expect(refused.status).toBe(415);
});
