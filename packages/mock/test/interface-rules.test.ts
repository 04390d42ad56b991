/**
 * Rules of docs/interface.md the conformance check does not reach, through the handler alone
 * (mock.fetch): bodies, names, parameters, Idempotency-Key scope and lifetime, credentials.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { createMock, manualClock } from '../src/index.js';

const mock = createMock({ clock: manualClock() });
beforeEach(() => mock.reset());

const API = 'http://mock.invalid/v1';
const bearer = (key = mock.keys.pro) => ({ Authorization: `Bearer ${key}` });

function create(body: BodyInit | null, headers: Record<string, string> = {}) {
  return mock.fetch(`${API}/pets`, {
    method: 'POST',
    headers: { ...bearer(), 'Content-Type': 'application/json', ...headers },
    body,
  });
}

const detailPaths = async (response: Response) =>
  ((await response.json()).details as { path: string }[]).map((detail) => detail.path);

describe('bodies', () => {
  test('an empty body or a JSON value that is not an object is validation_failed under body', async () => {
    for (const body of [null, '[]', '"Rex"']) {
      const answer = await create(body);
      expect(answer.status, String(body)).toBe(400);
      expect(await detailPaths(answer)).toEqual(['body']);
    }
  });

  test('JSON in a charset other than UTF-8 is 415; utf8 in any case is read', async () => {
    const body = JSON.stringify({ name: 'Rex', categoryId: 1 });
    expect(
      (await create(body, { 'Content-Type': 'application/json; charset=utf-16' })).status,
    ).toBe(415);
    expect((await create(body, { 'Content-Type': 'application/json; charset=UTF8' })).status).toBe(
      201,
    );
  });

  test('bytes that are not UTF-8, or only a byte order mark, are malformed_json; a leading BOM is dropped', async () => {
    const invalid = await create(new Uint8Array([0x7b, 0xff, 0x7d]));
    expect(await invalid.json()).toMatchObject({ code: 'malformed_json', status: 400 });
    expect((await create(new Uint8Array([0xef, 0xbb, 0xbf]))).status).toBe(400);
    const withBom = `\ufeff${JSON.stringify({ name: 'Rex', categoryId: 1 })}`;
    expect((await create(withBom)).status).toBe(201);
  });

  test('a name is counted in code points, stored as sent; only whitespace or a lone surrogate is refused', async () => {
    const hundredDogs = '🐶'.repeat(100);
    const created = await create(JSON.stringify({ name: hundredDogs, categoryId: 1 }));
    expect((await created.json()).name).toBe(hundredDogs);
    for (const name of [`${hundredDogs}🐶`, '\u0085 \t', '\ud800']) {
      const refused = await create(JSON.stringify({ name, categoryId: 1 }));
      expect(await detailPaths(refused), JSON.stringify(name)).toEqual(['name']);
    }
    const spaced = await create(
      JSON.stringify({ name: '  Rex\u0000 ', categoryId: 9007199254740991 }),
    );
    expect(await spaced.json()).toMatchObject({
      name: '  Rex\u0000 ',
      categoryId: 9007199254740991,
    });
  });
});

describe('parameters and paths', () => {
  test('limit must be canonical decimal; a repeated status is 400; unknown parameters are ignored', async () => {
    for (const query of ['limit=05', 'limit=1e1', 'limit=', 'status=sold&status=sold']) {
      const answer = await mock.fetch(`${API}/pets?${query}`, { headers: bearer() });
      expect(answer.status, query).toBe(400);
    }
    const ignored = await mock.fetch(`${API}/pets?limit[]=1&colour=brown`, { headers: bearer() });
    expect((await ignored.json()).length).toBe(6);
  });

  test('a petId that is not canonical digits as sent names no pet: 404, with the deprecation headers', async () => {
    for (const id of ['%31', '01', '0', '-1', '1.5', '9007199254740992']) {
      const answer = await mock.fetch(`${API}/pets/${id}`, { headers: bearer() });
      expect(answer.status, id).toBe(404);
      expect(answer.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    }
    expect((await mock.fetch(`${API}/pets/1`, { headers: bearer() })).status).toBe(200);
  });

  test('paths are exact, and the probes and the document allow GET and HEAD only', async () => {
    for (const path of ['/V1/Pets', '/v1/%70ets', '/v1/store/orders', '/docs']) {
      expect((await mock.fetch(`http://mock.invalid${path}`)).status, path).toBe(404);
    }
    const post = await mock.fetch('http://mock.invalid/healthz', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('Idempotency-Key', () => {
  const body = JSON.stringify({ name: 'Rex', categoryId: 1 });

  test('is scoped to the API key: another key with the same Idempotency-Key creates another pet', async () => {
    const first = await (await create(body, { 'Idempotency-Key': 'k1' })).json();
    const other = await create(body, { 'Idempotency-Key': 'k1', ...bearer(mock.keys.business) });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect((await other.json()).id).toBe(first.id + 1);
  });

  test("is remembered for 24 hours of the mock's clock, to the millisecond, then forgotten", async () => {
    const first = await (await create(body, { 'Idempotency-Key': 'k2' })).json();
    mock.clock.advance(24 * 60 * 60_000);
    expect((await (await create(body, { 'Idempotency-Key': 'k2' })).json()).id).toBe(first.id);
    mock.clock.advance(1);
    expect((await (await create(body, { 'Idempotency-Key': 'k2' })).json()).id).toBe(first.id + 1);
  });

  test('an explicit status is a different body from one without it: 409', async () => {
    await create(body, { 'Idempotency-Key': 'k3' });
    const withStatus = JSON.stringify({ name: 'Rex', categoryId: 1, status: 'available' });
    const answer = await create(withStatus, { 'Idempotency-Key': 'k3' });
    expect(await answer.json()).toMatchObject({ code: 'idempotency_key_reused', status: 409 });
  });
});

describe('credentials and counting', () => {
  test('the scheme word in any case with tabs is read; Basic, a revoked or unknown key is invalid_token', async () => {
    const tabbed = { Authorization: `bEaReR\t${mock.keys.pro}\t` };
    expect((await mock.fetch(`${API}/pets`, { headers: tabbed })).status).toBe(200);
    for (const authorization of ['Basic dXNlcjpwYXNz', `Bearer ${mock.keys.revoked}`, 'Bearer x']) {
      const answer = await mock.fetch(`${API}/pets`, { headers: { Authorization: authorization } });
      expect(answer.headers.get('www-authenticate'), authorization).toBe(
        'Bearer realm="animal-store", error="invalid_token"',
      );
    }
  });

  test('an IPv6 client is counted per /64 network, an IPv4-mapped address as the IPv4 address', async () => {
    const remainingFor = async (clientAddress: string) =>
      (await mock.handle(new Request(`${API}/pets`), { clientAddress })).headers.get(
        'x-ratelimit-remaining',
      );
    expect(await remainingFor('2001:db8:1:2::1')).toBe('59');
    expect(await remainingFor('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('58');
    expect(await remainingFor('2001:db8:1:3::1')).toBe('59');
    expect(await remainingFor('203.0.113.9')).toBe('59');
    expect(await remainingFor('::ffff:203.0.113.9')).toBe('58');
  });

  test("an address's ban does not block a valid key; the document is counted per address even with one", async () => {
    for (let sent = 0; sent < 60 + 61; sent++) await mock.fetch(`${API}/pets`);
    const banned = await mock.fetch(`${API}/pets`);
    expect(await banned.json()).toMatchObject({ code: 'temporarily_banned' });
    expect((await mock.fetch(`${API}/pets`, { headers: bearer() })).status).toBe(200);
    const document = await mock.fetch(`${API}/openapi.json`, { headers: bearer() });
    expect(document.status).toBe(429);
    expect((await mock.fetch('http://mock.invalid/readyz')).status).toBe(200);
  });
});
