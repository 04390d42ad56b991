// @module-tag node-runtime: Node's HTTP parser (llhttp) reads these requests first
import type { IncomingMessage, ServerResponse } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPageUrl } from '../support/acknowledged-pets.js';
import { exchangeRaw, sendRaw } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

const auth = () => `Authorization: Bearer ${api.apiKey}\r\n`;

async function listAll(): Promise<Array<{ id: number }>> {
  const pets: Array<{ id: number }> = [];
  let path: string | undefined = '/v1/pets?limit=100';
  while (path) {
    const res = await api.request(path);
    pets.push(...(await res.json()));
    const next = nextPageUrl(res.headers.get('link') ?? undefined);
    path = next?.slice(api.baseUrl.length);
  }
  return pets;
}

function expectErrorBody(
  raw: { status: number; headers: Record<string, string>; body: string },
  status: number,
  code: string,
) {
  expect(raw.status).toBe(status);
  expect(raw.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(raw.headers['x-request-id']).toBeTruthy();
  expect(raw.headers['x-ratelimit-limit']).toBeTruthy();
  // The browser headers of every answer, also where Node's parser refused the request.
  expect(raw.headers['x-content-type-options']).toBe('nosniff');
  expect(raw.headers['cache-control']).toBe('no-store');
  expect(raw.headers['referrer-policy']).toBe('no-referrer');
  expect(JSON.parse(raw.body)).toMatchObject({ code, status });
}

describe('Requests at the edges of HTTP', () => {
  it('a "#" in the request target is 400 malformed_request: nothing after it is silently dropped', async () => {
    for (const target of ['/v1/pets?status=available&x#y&status=pending', '/v1/pets#top']) {
      const raw = await sendRaw(
        api.port,
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${auth()}Connection: close\r\n\r\n`,
      );
      expectErrorBody(raw, 400, 'malformed_request');
    }
  });

  it('a JSON body declared in a charset other than UTF-8 is 415 unsupported_media_type, and stores nothing', async () => {
    const before = (await (await api.request('/v1/pets?limit=100')).json()).length;
    for (const charset of ['utf-16', 'UTF-16LE', 'iso-8859-1', '"latin1"']) {
      const res = await api.request('/v1/pets', {
        method: 'POST',
        headers: { 'content-type': `application/json; charset=${charset}` },
        body: Buffer.from(
          '{"name":"Rex","categoryId":1}',
          charset.includes('16') ? 'utf16le' : 'latin1',
        ),
      });
      expect(res.status, charset).toBe(415);
      expect(await res.json()).toMatchObject({ code: 'unsupported_media_type', status: 415 });
    }
    const utf8 = await api.request('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(utf8.status).toBe(201);
    expect((await (await api.request('/v1/pets?limit=100')).json()).length).toBe(before + 1);
  });

  it('a compressed body that does not decompress is 400 malformed_json, not a 500', async () => {
    for (const encoding of ['gzip', 'deflate']) {
      const res = await api.request('/v1/pets', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: '{"name":"Rex","categoryId":1}',
      });
      expect(res.status, encoding).toBe(400);
      expect((await res.json()).code).toBe('malformed_json');
    }
    const gzipped = await api.request('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync('{"name":"Zipped","categoryId":1}'),
    });
    expect(gzipped.status).toBe(201);
  });

  it('a compressed body that decodes to nothing is an empty body: 400 validation_failed under body', async () => {
    for (const [encoding, empty] of [
      ['gzip', gzipSync('')],
      ['deflate', deflateSync('')],
    ] as const) {
      const res = await api.request('/v1/pets', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: empty,
      });
      expect(res.status, encoding).toBe(400);
      const body = await res.json();
      expect(body.code).toBe('validation_failed');
      expect(body.details.map((detail: { path: string }) => detail.path)).toEqual(['body']);
    }
  });

  it('a create read in full is answered before the bytes after it on the connection are refused: its 201 first, then the 400', async () => {
    const before = (await listAll()).length;
    const body = '{"name":"Pipelined","categoryId":1}';
    const answers = await exchangeRaw(
      api.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}not a request\r\n\r\n`,
    );
    expect(answers.map((answer) => answer.status)).toEqual([201, 400]);
    const created = JSON.parse(answers[0]?.body ?? '');
    expect(created).toMatchObject({ name: 'Pipelined' });
    expect(JSON.parse(answers[1]?.body ?? '').code).toBe('malformed_request');
    const listed = await listAll();
    expect(listed.length).toBe(before + 1);
    expect(listed.at(-1)).toEqual(created);
  });

  it('a create read in full is answered before the refusal of the next request on the connection, whose body breaks off: its 201 first, then the 400', async () => {
    const body = '{"name":"Before a broken body","categoryId":1}';
    const answers = await exchangeRaw(
      api.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        // The second request's head is read, so it is the connection's latest; its body is not.
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nnot a chunk size\r\n\r\n`,
    );
    expect(answers.map((answer) => answer.status)).toEqual([201, 400]);
    expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({ name: 'Before a broken body' });
    expect(JSON.parse(answers[1]?.body ?? '').code).toBe('malformed_request');
  });

  it('an HTTP/1.1 request without Host, or with a bad or repeated one, or with two Authorization headers, is 400 malformed_request with an Error body', async () => {
    const requests = [
      `GET /v1/pets HTTP/1.1\r\n${auth()}Connection: close\r\n\r\n`,
      `GET /v1/pets HTTP/1.1\r\nHost: a b\r\n${auth()}Connection: close\r\n\r\n`,
      `GET /v1/pets HTTP/1.1\r\nHost: x>; rel="evil"\r\n${auth()}Connection: close\r\n\r\n`,
      `GET /v1/pets HTTP/1.1\r\nHost: x:65536\r\n${auth()}Connection: close\r\n\r\n`,
      `GET /v1/pets HTTP/1.1\r\nHost: one\r\nHost: two\r\n${auth()}Connection: close\r\n\r\n`,
      // Two Authorization headers, whichever comes first: Node would keep only the first.
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}Authorization: Basic eA==\r\nConnection: close\r\n\r\n`,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nauthorization: Bearer junk\r\n${auth()}Connection: close\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n`,
    ];
    for (const request of requests)
      expectErrorBody(await sendRaw(api.port, request), 400, 'malformed_request');
  });

  it('a Host naming a service with "_" and a port (Docker Compose) is served, and its Link parses', async () => {
    await api.request('/v1/pets', { method: 'POST', json: { name: 'A', categoryId: 1 } });
    await api.request('/v1/pets', { method: 'POST', json: { name: 'B', categoryId: 1 } });
    for (const host of ['animal_store:3000', 'x:65535', 'store']) {
      const res = await sendRaw(
        api.port,
        `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: ${host}\r\n${auth()}Connection: close\r\n\r\n`,
      );
      expect(res.status).toBe(200);
      const next = nextPageUrl(res.headers.link) ?? '';
      expect(new URL(next).host).toBe(host);
    }
  });

  it("a request whose target is an absolute URL addressed that URL's host, not its Host header (RFC 9112 §3.2.2); another scheme or a malformed host there is 400", async () => {
    await api.request('/v1/pets', { method: 'POST', json: { name: 'A', categoryId: 1 } });
    await api.request('/v1/pets', { method: 'POST', json: { name: 'B', categoryId: 1 } });
    const res = await sendRaw(
      api.port,
      `GET http://api.animal-store.test:8080/v1/pets?limit=1 HTTP/1.1\r\nHost: elsewhere\r\n${auth()}Connection: close\r\n\r\n`,
    );
    expect(res.status).toBe(200);
    const next = new URL(nextPageUrl(res.headers.link) ?? '');
    expect(next.host).toBe('api.animal-store.test:8080');
    expect(next.pathname).toBe('/v1/pets');
    for (const target of [
      'http://user@api.test/v1/pets',
      'http:///v1/pets',
      'ftp://api.test/v1/pets',
      'mailto:a@api.test',
    ]) {
      const refused = await sendRaw(
        api.port,
        `GET ${target} HTTP/1.1\r\nHost: x\r\n${auth()}Connection: close\r\n\r\n`,
      );
      expect(refused.status, target).toBe(400);
    }
  });

  it('an HTTP/1.0 request without Host gets a Link with a valid absolute URL', async () => {
    await api.request('/v1/pets', { method: 'POST', json: { name: 'A', categoryId: 1 } });
    await api.request('/v1/pets', { method: 'POST', json: { name: 'B', categoryId: 1 } });
    const res = await sendRaw(api.port, `GET /v1/pets?limit=1 HTTP/1.0\r\n${auth()}\r\n`);
    expect(res.status).toBe(200);
    const next = nextPageUrl(res.headers.link) ?? '';
    expect(new URL(next).origin).toBe(`http://127.0.0.1:${api.port}`);
  });

  it('a conditional request gets the whole response: nothing carries a validator, so nothing is "not modified"', async () => {
    const created = await api.request('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Conditional","categoryId":1}',
    });
    const pet = created.headers.get('location');
    const conditions = [
      'If-None-Match: *',
      'If-None-Match: W/"x", *',
      `If-Modified-Since: ${new Date(Date.now() + 86_400_000).toUTCString()}`,
    ];
    // Sent raw, as curl sends them: Node's fetch showed these 304s as 200s.
    for (const condition of conditions) {
      for (const path of ['/v1/pets?limit=1', pet, '/healthz', '/v1/openapi.json', '/docs']) {
        const res = await sendRaw(
          api.port,
          `GET ${path} HTTP/1.1\r\nHost: x\r\n${auth()}${condition}\r\nConnection: close\r\n\r\n`,
        );
        expect(res.status, `${path} ${condition}`).toBe(200);
        expect(res.body.length).toBeGreaterThan(0);
      }
    }
  });

  it('an unknown expectation is ignored rather than answered with a bare 417', async () => {
    const body = '{"name":"Expecting","categoryId":1}';
    const res = await sendRaw(
      api.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}Expect: something\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(res.status).toBe(201);
  });

  it('CONNECT is answered with an Error body', async () => {
    const res = await sendRaw(
      api.port,
      `CONNECT 127.0.0.1:${api.port} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expectErrorBody(res, 400, 'malformed_request');
  });

  it('an empty chunked body is an empty body (400 validation_failed), whatever its Content-Type', async () => {
    const res = await sendRaw(
      api.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`,
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).code).toBe('validation_failed');
    const nonEmpty = await sendRaw(
      api.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nhi\r\n0\r\n\r\n`,
    );
    expect(nonEmpty.status).toBe(415);
  });

  it('request headers over 16 KiB as sent are 431, however they are split', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => `X-H${i}: ${'v'.repeat(8)}\r\n`).join('');
    const res = await sendRaw(
      api.port,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}${many}Connection: close\r\n\r\n`,
    );
    expectErrorBody(res, 431, 'headers_too_large');
  });

  it('a header after a thousand others is still read: the API key among them is honoured', async () => {
    const others = Array.from({ length: 1_100 }, (_, i) => `X-F${i}:\r\n`).join('');
    const res = await sendRaw(
      api.port,
      `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\n${others}${auth()}Connection: close\r\n\r\n`,
    );
    expect(res.status).toBe(200);
  });

  it('more header lines than 16 KiB holds are 431, not cut off unseen', async () => {
    // Four bytes a line on the wire: 5,000 of them are 20,000 bytes of headers.
    const lines = 'a:\r\n'.repeat(5_000);
    const res = await sendRaw(
      api.port,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}${lines}Connection: close\r\n\r\n`,
    );
    expectErrorBody(res, 431, 'headers_too_large');
  });

  it('a body announced over 16 KiB is refused at once, without waiting for it', async () => {
    // Announced far beyond what is sent: an answer after the body would never come.
    const res = await sendRaw(
      api.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 99999999999\r\nConnection: close\r\n\r\n{}`,
    );
    expectErrorBody(res, 413, 'payload_too_large');
  });

  it('after a 413 for an announced body sent whole, the connection serves the next request', async () => {
    const body = JSON.stringify({ name: 'Rex', categoryId: 1, pad: 'x'.repeat(20_000) });
    const [refused, next] = await exchangeRaw(
      api.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\n${auth()}Connection: close\r\n\r\n`,
    );
    expect(refused?.status).toBe(413);
    expect(next?.status).toBe(200);
  });

  it('a limit or status after a thousand unknown parameters is still read', async () => {
    const unknown = Array.from({ length: 1_000 }, (_, i) => `u${i}=1`).join('&');
    for (const [query, code] of [
      ['limit=0', 'validation_failed'],
      ['status=adopted', 'validation_failed'],
      ['limit=1&limit=1', 'validation_failed'],
    ]) {
      const res = await api.request(`/v1/pets?${unknown}&${query}`);
      expect(res.status, query).toBe(400);
      expect((await res.json()).code).toBe(code);
    }
    const res = await api.request(`/v1/pets?${unknown}&limit=1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveLength(1);
  });

  it('a bracketed query name is an unknown parameter, so it is ignored', async () => {
    for (const query of ['limit[]=1', 'limit[a]=1', 'status[]=sold', 'cursor[]=x']) {
      const res = await api.request(`/v1/pets?${query}`);
      expect(res.status, query).toBe(200);
    }
  });

  it('a client that ends its side of the connection after a create still gets its 201', async () => {
    const body = JSON.stringify({ name: 'Half closed', categoryId: 1 });
    const raw = await sendRaw(
      api.port,
      `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      { halfClose: true },
    );
    expect(raw.status).toBe(201);
    const created = JSON.parse(raw.body) as { id: number };
    expect(await listAll()).toContainEqual(expect.objectContaining({ id: created.id }));
  });

  it('a request without a body is read to its end before it is answered; one with a body is read in full', async () => {
    // Read to its end, Node lets go of a request as soon as it is answered, without adding a
    // listener to drain it first.
    const endedWhenAnswered: boolean[] = [];
    const watch = (req: IncomingMessage, res: ServerResponse) =>
      res.on('finish', () => endedWhenAnswered.push(req.readableEnded));
    api.server.on('request', watch);
    try {
      expect((await api.request('/v1/pets?limit=1')).status).toBe(200);
      const created = await api.request('/v1/pets', {
        method: 'POST',
        json: { name: 'Read in full', categoryId: 1, status: 'available' },
      });
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({ name: 'Read in full' });
    } finally {
      api.server.off('request', watch);
    }
    expect(endedWhenAnswered).toEqual([true, true]);
  });

  it('a trailing slash is another path: 404', async () => {
    for (const path of ['/v1/pets/', '/v1/pets/1/', '/healthz/', '/v1/openapi.json/']) {
      expect((await api.request(path)).status, path).toBe(404);
    }
  });

  it('documents are counted per client IP, even with a key', async () => {
    // Other tests here send keyless requests from the same address: only the step is known.
    const first = await api.request('/v1/openapi.json');
    const second = await api.request('/v1/openapi.json');
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
  });
});

describe('Behind a trusted proxy', () => {
  let proxied: TestServer;
  beforeAll(async () => {
    proxied = await startTestServer({ trustProxy: 1 });
    for (const name of ['A', 'B']) {
      await proxied.request('/v1/pets', { method: 'POST', json: { name, categoryId: 1 } });
    }
  });
  afterAll(() => proxied.close());

  const nextLink = async (forwardedProto: string) => {
    const res = await proxied.request('/v1/pets?limit=1', {
      headers: { 'x-forwarded-proto': forwardedProto },
    });
    expect(res.status).toBe(200);
    return nextPageUrl(res.headers.get('link') ?? undefined) ?? '';
  };

  it("X-Forwarded-Proto's https makes the Link https; any other value leaves it http, never a scheme the client made up", async () => {
    expect(new URL(await nextLink('https')).protocol).toBe('https:');
    expect(new URL(await nextLink('HTTPS')).protocol).toBe('https:');
    for (const sent of ['http', 'javascript', 'ftp', 'x>; rel="evil"', 'https>']) {
      const link = await nextLink(sent);
      expect(link.startsWith(`http://${new URL(proxied.baseUrl).host}/v1/pets?`), link).toBe(true);
    }
  });
});
