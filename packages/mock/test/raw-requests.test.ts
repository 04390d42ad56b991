/**
 * The mock's door against the server's: the same raw requests, byte for byte (docs/interface.md,
 * "Requests at the edges of HTTP", and what a browser's fetch cannot send), sent to the mock's
 * Node server and to the real server (built, started as users start it), answered alike: status,
 * Error body, and every header but those of the moment (`Date`, the rate-limit counts, a new
 * request id). A difference the mock's README states ("What it does not do") is listed here as
 * one, with its reason, and must still be one.
 */
import { gzipSync } from 'node:zlib';
import { type LiveServer, startLiveServer } from '@animal-store/server/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type MockServer, startMockServer } from '../src/index.js';
import { type RawAnswer, type SendOptions, sendRaw } from './support/raw-http.js';

/** A page origin both allow, as a deployment's CORS_ORIGINS. */
const ORIGIN = 'https://app.example';

interface Door {
  readonly port: number;
  /** `127.0.0.1:<port>`, what `{host}` stands for in a request. */
  readonly host: string;
  /** A key with room for every request here, what `{key}` stands for. */
  readonly key: string;
}

let server: LiveServer;
let mock: MockServer;
let serverDoor: Door;
let mockDoor: Door;

const doorOf = (url: string, key: string): Door => {
  const { host, port } = new URL(url);
  return { port: Number(port), host, key };
};

beforeAll(async () => {
  // A server of its own, as startLiveServer's default: no shared Redis counts, links on its origin.
  const { PUBLIC_URL: _publicUrl, REDIS_URL: _redisUrl, ...environment } = process.env;
  [server, mock] = await Promise.all([
    startLiveServer('mock-door', { env: { ...environment, CORS_ORIGINS: ORIGIN } }),
    startMockServer({ port: 0, seed: false, corsOrigins: [ORIGIN] }),
  ]);
  const roomy = { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 } as const;
  serverDoor = doorOf(server.baseUrl, await server.createKey(roomy));
  mockDoor = doorOf(mock.url, mock.mock.keys.create(roomy));
});

afterAll(async () => {
  await Promise.all([server?.stop(), mock?.close()]);
});

const CRLF = '\r\n';
const HOST = 'Host: {host}';
const KEY = 'Authorization: Bearer {key}';
const JSON_TYPE = 'Content-Type: application/json';

/** A request's bytes as text, one character a byte (latin1), with `{host}` and `{key}` to fill. */
const http = (requestLine: string, headers: readonly string[], body = '') =>
  [requestLine, ...headers, '', body].join(CRLF);

const get = (target: string, ...headers: string[]) =>
  http(`GET ${target} HTTP/1.1`, [HOST, KEY, ...headers]);

/** A request with a body, its `Content-Length` counted. */
const withBody = (requestLine: string, headers: readonly string[], body: string) =>
  http(requestLine, [...headers, `Content-Length: ${body.length}`], body);

const create = (headers: readonly string[], body: string) =>
  withBody('POST /v1/pets HTTP/1.1', [HOST, KEY, ...headers], body);

const aPet = (name: string) => JSON.stringify({ name, categoryId: 1 });

/** Bytes as text, one character each, for a body that is not UTF-8 (gzip's, say). */
const latin1 = (bytes: Buffer) => bytes.toString('latin1');

interface Row {
  readonly request: string;
  readonly options?: SendOptions;
  /** The reason the mock answers otherwise, as its README states it. */
  readonly differs?: string;
}

/**
 * In order: the pets created early are what the later requests list and page. Each answers alike
 * unless it names the README's reason not to.
 */
const ROWS: Record<string, Row> = {
  // What the issue found different (issue 70), each now alike.
  'an Expect other than 100-continue is ignored': { request: get('/v1/pets', 'Expect: something') },
  'CONNECT is refused as bytes the parser refuses': {
    request: http('CONNECT {host} HTTP/1.1', [HOST]),
  },
  'an HTTP/2.0 request line is not HTTP/1': {
    request: http('GET /v1/pets HTTP/2.0', [HOST, KEY]),
  },
  'an HTTP/0.9 request line is not HTTP/1': {
    request: http('GET /v1/pets HTTP/0.9', [HOST, KEY]),
  },
  'a Host that is not a host, counted against the valid key it carries': {
    request: http('GET /v1/pets HTTP/1.1', ['Host: a/b', KEY]),
  },
  'an ftp:// target, counted against the valid key it carries': {
    request: http('GET ftp://example.com/v1/pets HTTP/1.1', [HOST, KEY]),
  },
  'Content-Type: application/json twice is JSON': {
    request: create([JSON_TYPE, JSON_TYPE], aPet('Twice typed')),
  },

  // Bodies (createPet's): size, types, encodings, bytes.
  'a body announcing more than 16 KiB is refused at once': {
    request: http('POST /v1/pets HTTP/1.1', [HOST, KEY, JSON_TYPE, 'Content-Length: 20000']),
  },
  'a body of exactly 16 KiB is read': {
    request: create(
      [JSON_TYPE],
      `{"name":"${'x'.repeat(16 * 1024 - 30)}","categoryId":1}`.padEnd(16 * 1024, ' '),
    ),
  },
  'a body of 16 KiB and a byte is 413': {
    request: create([JSON_TYPE], aPet('Big').padEnd(16 * 1024 + 1, ' ')),
  },
  'a chunked body past 16 KiB is 413': {
    request: http(
      'POST /v1/pets HTTP/1.1',
      [HOST, KEY, JSON_TYPE, 'Transfer-Encoding: chunked'],
      `5000${CRLF}${'x'.repeat(0x5000)}${CRLF}0${CRLF}${CRLF}`,
    ),
  },
  'a gzip body is read decoded': {
    request: create([JSON_TYPE, 'Content-Encoding: gzip'], latin1(gzipSync(aPet('Zipped')))),
  },
  'a br body is 415': { request: create([JSON_TYPE, 'Content-Encoding: br'], aPet('Brotli')) },
  'JSON in UTF-16 is 415': {
    request: create(['Content-Type: application/json; charset=utf-16'], aPet('Wide')),
  },
  'utf8 in any case is UTF-8': {
    request: create(['Content-Type: application/json; charset=UTF8'], aPet('Narrow')),
  },
  'a body of another type is 415': { request: create(['Content-Type: text/plain'], aPet('Text')) },
  'a body of no type is 415': { request: create([], aPet('Untyped')) },
  'an empty body needs no type: validation_failed under body': { request: create([], '') },
  'an empty chunked body of another type is no body': {
    request: http(
      'POST /v1/pets HTTP/1.1',
      [HOST, KEY, 'Content-Type: text/plain', 'Transfer-Encoding: chunked'],
      `0${CRLF}${CRLF}`,
    ),
  },
  'JSON that does not parse is malformed_json': { request: create([JSON_TYPE], '{"name":') },
  'bytes that are not UTF-8 are malformed_json': {
    request: create([JSON_TYPE], '{"name":"\xff"}'),
  },
  'a byte order mark alone is malformed_json': { request: create([JSON_TYPE], '\xef\xbb\xbf') },
  'a leading byte order mark is dropped': {
    request: create([JSON_TYPE], `\xef\xbb\xbf${aPet('Marked')}`),
  },
  'an unknown field and a bad one are named, in order': {
    request: create([JSON_TYPE], '{"name":"","categoryId":0,"colour":"brown"}'),
  },
  'an Idempotency-Key replayed': {
    request: create([JSON_TYPE, 'Idempotency-Key: k1'], aPet('Once')),
  },
  'an Idempotency-Key replayed, the second time': {
    request: create([JSON_TYPE, 'Idempotency-Key: k1'], aPet('Once')),
  },
  'an Idempotency-Key with another body is 409': {
    request: create([JSON_TYPE, 'Idempotency-Key: k1'], aPet('Twice')),
  },
  'a client that ends its side after its request is still answered': {
    request: create([JSON_TYPE], aPet('Half-closed')),
    options: { halfClose: true },
  },

  // Reading and paging what was created.
  'a page, and the Link to the next': { request: get('/v1/pets?limit=2&status=available') },
  'HEAD is GET without the body': {
    request: http('HEAD /v1/pets?limit=2 HTTP/1.1', [HOST, KEY]),
    options: { head: true },
  },
  'an absolute-form target addressed its host': {
    request: get('http://api.example:8080/v1/pets?limit=1'),
  },
  'an absolute-form target with a bad host': { request: get('http://a%2Fb/v1/pets') },
  'HTTP/1.0 without Host links to the address it reached': {
    request: http('GET /v1/pets?limit=1 HTTP/1.0', [KEY]),
  },
  'a Host with a port past 65535': {
    request: http('GET /v1/pets HTTP/1.1', ['Host: a.example:65536', KEY]),
  },
  'a Host of letters, digits, _ and a bracketed IPv6 address': {
    request: http('GET /v1/pets?limit=1 HTTP/1.1', ['Host: [::1]:8080', KEY]),
  },
  'a Host with an underscore': {
    request: http('GET /v1/pets?limit=1 HTTP/1.1', ['Host: pets_api:3000', KEY]),
  },
  'a repeated known parameter is 400, unknown ones past a thousand are read': {
    request: get(`/v1/pets?${'colour=brown&'.repeat(1001)}limit=1&limit=2`),
  },
  'limit[] is an unknown parameter': { request: get('/v1/pets?limit[]=0&limit=1') },
  'a cursor not issued, beside a bad limit': { request: get('/v1/pets?limit=0&cursor=1.abc') },
  'getPet: a pet, deprecated': { request: get('/v1/pets/1') },
  'getPet: no such pet, deprecated all the same': { request: get('/v1/pets/999') },
  'getPet: an id not in canonical digits names no pet': { request: get('/v1/pets/%31') },
  'getPet: an id that is no number': { request: get('/v1/pets/abc') },
  'Conditional headers are ignored': { request: get('/v1/pets/1', 'If-None-Match: *') },
  'a sane X-Request-Id is echoed': {
    request: get('/v1/pets?limit=1', 'X-Request-Id: req-1.a_b:c'),
  },
  'an insane X-Request-Id is replaced': { request: get('/v1/pets?limit=1', 'X-Request-Id: a b') },

  // Paths and methods.
  'a trailing slash is another path': { request: get('/v1/pets/') },
  'paths are case-sensitive': { request: get('/V1/Pets') },
  'paths are not percent-decoded': { request: get('/v1/%70ets') },
  'a backslash is not a slash': { request: get('/v1\\pets') },
  'braces are named as sent': { request: get('/v1/{pets}') },
  'a method the path does not allow': { request: http('PUT /v1/pets HTTP/1.1', [HOST, KEY]) },
  'a probe allows GET and HEAD': {
    request: http('POST /healthz HTTP/1.1', [HOST, 'Content-Length: 0']),
  },
  'the probes answer without a key': { request: http('GET /healthz HTTP/1.1', [HOST]) },
  'HEAD of an unknown path': {
    request: http('HEAD /nowhere HTTP/1.1', [HOST, KEY]),
    options: { head: true },
  },
  'OPTIONS * names no path': { request: http('OPTIONS * HTTP/1.1', [HOST]) },
  'the OpenAPI document': { request: get('/v1/openapi.json') },
  'the interactive reference': {
    request: get('/docs'),
    differs: 'It does not serve the interactive reference (/docs)',
  },

  // Credentials.
  'no key is 401 with the challenge': { request: http('GET /v1/pets HTTP/1.1', [HOST]) },
  'Basic is not a key': {
    request: http('GET /v1/pets HTTP/1.1', [HOST, 'Authorization: Basic dXNlcjpwYXNz']),
  },
  'an unknown key is invalid_token': {
    request: http('GET /v1/pets HTTP/1.1', [HOST, `Authorization: Bearer ask_${'A'.repeat(49)}`]),
  },
  'the scheme in any case, with tabs': {
    request: http('GET /v1/pets?limit=1 HTTP/1.1', [HOST, 'Authorization: bEaReR\t{key}\t']),
  },

  // Browsers.
  'an allowed origin reads the answer': { request: get('/v1/pets?limit=1', `Origin: ${ORIGIN}`) },
  'a preflight from an allowed origin': {
    request: http('OPTIONS /v1/pets HTTP/1.1', [
      HOST,
      `Origin: ${ORIGIN}`,
      'Access-Control-Request-Method: POST',
      'Access-Control-Request-Headers: authorization, content-type, idempotency-key',
    ]),
  },
  'a preflight from another origin is an OPTIONS no path allows': {
    request: http('OPTIONS /v1/pets HTTP/1.1', [
      HOST,
      'Origin: https://elsewhere.example',
      'Access-Control-Request-Method: POST',
    ]),
  },
  'OPTIONS without an origin': { request: http('OPTIONS /v1/pets HTTP/1.1', [HOST]) },
  'a preflight with a bad Host': {
    request: http('OPTIONS /v1/pets HTTP/1.1', [
      'Host: a/b',
      `Origin: ${ORIGIN}`,
      'Access-Control-Request-Method: GET',
    ]),
  },

  // The request head, after the rate limit.
  'HTTP/1.1 without Host': { request: http('GET /v1/pets HTTP/1.1', [KEY]) },
  'Host twice': { request: get('/v1/pets', 'Host: other.example') },
  'Authorization twice': { request: get('/v1/pets', KEY) },
  'a # in the target': { request: get('/v1/pets/1#top') },
  'headers over 16 KiB as sent, under Node’s count': {
    request: get('/v1/pets', ...Array.from({ length: 3000 }, (_, i) => `${i % 10}: ${i % 7}`)),
  },
  'more header lines than Node keeps, the key last': {
    request: http('GET /v1/pets?limit=1 HTTP/1.1', [
      HOST,
      ...Array.from({ length: 2500 }, () => 'x: 1'),
      KEY,
    ]),
  },

  // What the HTTP parser refuses (step 1): uncounted, then the connection closes.
  'headers over 16 KiB as Node counts them': {
    request: get('/v1/pets', `X-Padding: ${'x'.repeat(17_000)}`),
  },
  'a broken request line': { request: `BROKEN${CRLF}${CRLF}` },
  'an unknown method': { request: http('BREW /v1/pets HTTP/1.1', [HOST, KEY]) },
  'HTTP/1.2': { request: http('GET /v1/pets HTTP/1.2', [HOST, KEY]) },
  'a control byte in the target': { request: http('GET /v1/pe\x7fts HTTP/1.1', [HOST, KEY]) },
  'Content-Length beside Transfer-Encoding': {
    request: http(
      'POST /v1/pets HTTP/1.1',
      [HOST, KEY, JSON_TYPE, 'Content-Length: 3', 'Transfer-Encoding: chunked'],
      '0\r\n\r\n',
    ),
  },
  'a request read in full is answered before the bytes after it are refused': {
    request: `${get('/v1/pets/1')}BROKEN${CRLF}${CRLF}`,
    options: { answers: 2 },
  },
};

/** Headers of the moment, which no two answers share. */
const OF_THE_MOMENT = new Set(['date', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** What must agree of an answer, written with the door's own host and key and cursors left out. */
function comparable(answer: RawAnswer, door: Door) {
  const general = (text: string) =>
    text
      .replaceAll(door.host, '{host}')
      .replaceAll(door.key, '{key}')
      .replace(/cursor=[\w.-]+/g, 'cursor={cursor}')
      .replace(UUID, '{uuid}');
  const headers = Object.entries(answer.headers)
    .filter(([name]) => !OF_THE_MOMENT.has(name))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}: ${general(value)}`);
  return { status: answer.status, headers, body: general(answer.body) };
}

async function exchange(door: Door, { request, options }: Row) {
  const bytes = Buffer.from(
    request.replaceAll('{host}', door.host).replaceAll('{key}', door.key),
    'latin1',
  );
  return (await sendRaw(door.port, bytes, options)).map((answer) => comparable(answer, door));
}

describe('the same raw request to the mock and to the server', () => {
  test.each(Object.entries(ROWS))('%s', async (_name, row) => {
    const fromServer = await exchange(serverDoor, row);
    const fromMock = await exchange(mockDoor, row);
    expect(fromServer.length).toBeGreaterThan(0);
    if (row.differs === undefined) expect(fromMock).toEqual(fromServer);
    else expect(fromMock, `a difference the README states: ${row.differs}`).not.toEqual(fromServer);
  });
});
