import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

function create(body: string, idempotencyKey?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return api.request('/v1/pets', { method: 'POST', headers, body });
}

async function allPets(): Promise<Array<{ id: number; name: string }>> {
  return (await api.request('/v1/pets?limit=100')).json();
}

describe('createPet', () => {
  it('201 with the Pet and Location: /v1/pets/{id}', async () => {
    const res = await create(JSON.stringify({ name: 'Rex', categoryId: 7, status: 'pending' }));
    expect(res.status).toBe(201);
    const pet = await res.json();
    expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 7, status: 'pending' });
    expect(res.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(await (await api.request(`/v1/pets/${pet.id}`)).json()).toEqual(pet);
  });

  it('Idempotency-Key: a retry with the same key and the same JSON value replays the first response and creates nothing', async () => {
    const first = await create('{"name":"Idem","categoryId":3}', 'retry-1');
    expect(first.status).toBe(201);
    const pet = await first.json();
    const countAfterFirst = (await allPets()).length;

    const retry = await create('{ "categoryId": 3,\n  "name": "Idem" }', 'retry-1');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
    expect(await retry.json()).toEqual(pet);
    expect((await allPets()).length).toBe(countAfterFirst);
  });

  it('Idempotency-Key: the same key with a different body is 409 idempotency_key_reused', async () => {
    expect((await create('{"name":"First","categoryId":1}', 'reuse-1')).status).toBe(201);
    const count = (await allPets()).length;
    const res = await create('{"name":"Second","categoryId":1}', 'reuse-1');
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'idempotency_key_reused', status: 409 });
    expect((await allPets()).length).toBe(count);
    // An explicit default is a different JSON value from an omitted field.
    expect(
      (await create('{"name":"First","categoryId":1,"status":"available"}', 'reuse-1')).status,
    ).toBe(409);
  });

  it('Idempotency-Key: different keys create different pets', async () => {
    const a = await (await create('{"name":"Twin","categoryId":1}', 'twin-a')).json();
    const b = await (await create('{"name":"Twin","categoryId":1}', 'twin-b')).json();
    expect(a.id).not.toBe(b.id);
  });

  it('Idempotency-Key: two concurrent requests with the same key and body create one pet, both 201 with its id', async () => {
    const before = (await allPets()).length;
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => create('{"name":"Racer","categoryId":9}', 'race-1')),
    );
    const bodies = await Promise.all(responses.map((res) => res.json()));
    for (const res of responses) expect(res.status).toBe(201);
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    expect((await allPets()).length).toBe(before + 1);
    expect(
      responses.filter((res) => res.headers.get('idempotent-replayed') === 'true').length,
    ).toBe(7);
  });

  it('Idempotency-Key: a request that fails validation stores nothing under its key', async () => {
    const invalid = await create('{"name":"","categoryId":1}', 'fix-me');
    expect(invalid.status).toBe(400);
    const malformed = await create('{"name":', 'fix-me');
    expect(malformed.status).toBe(400);
    const fixed = await create('{"name":"Fixed","categoryId":1}', 'fix-me');
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('Idempotency-Key: 1 to 255 visible ASCII characters, else 400', async () => {
    expect((await create('{"name":"K","categoryId":1}', 'k'.repeat(255))).status).toBe(201);
    expect((await create('{"name":"K","categoryId":1}', '!~#$%&*+/=?^_`{|}')).status).toBe(201);
    for (const key of ['k'.repeat(256), 'with space', 'tab\tkey']) {
      const res = await create('{"name":"K","categoryId":1}', key);
      expect(res.status, key).toBe(400);
      const body = await res.json();
      expect(body.code).toBe('validation_failed');
      expect(body.details[0].path).toBe('idempotency-key');
    }
  });
});
