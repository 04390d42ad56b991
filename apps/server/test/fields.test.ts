import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

function create(body: unknown) {
  return api.request('/v1/pets', { method: 'POST', json: body });
}

async function expectRefused(body: unknown, field: string) {
  const res = await create(body);
  expect(res.status, JSON.stringify(body)).toBe(400);
  const error = await res.json();
  expect(error).toMatchObject({ code: 'validation_failed', status: 400 });
  expect(error.details.map((detail: { path: string }) => detail.path)).toContain(field);
}

async function expectStoredAsSent(name: string) {
  const res = await create({ name, categoryId: 1 });
  expect(res.status, JSON.stringify(name)).toBe(201);
  const pet = await res.json();
  expect(pet.name).toBe(name);
  const read = await (await api.request(`/v1/pets/${pet.id}`)).json();
  expect(read.name).toBe(name);
}

describe('Fields', () => {
  it('name: 1 to 100 Unicode code points, not UTF-16 units', async () => {
    await expectStoredAsSent('R');
    await expectStoredAsSent('x'.repeat(100));
    await expectStoredAsSent('🐶'.repeat(100));
    await expectRefused({ name: 'x'.repeat(101), categoryId: 1 }, 'name');
    await expectRefused({ name: '🐶'.repeat(101), categoryId: 1 }, 'name');
    await expectRefused({ name: '', categoryId: 1 }, 'name');
  });

  it('name: not only whitespace', async () => {
    for (const name of [' ', '   ', '\t\n', '\u00a0\u3000']) {
      await expectRefused({ name, categoryId: 1 }, 'name');
    }
  });

  it('name: well-formed Unicode (a lone surrogate is 400)', async () => {
    for (const raw of ['"\\ud800"', '"a\\udc00b"', '"\\ud83d"']) {
      const res = await api.request('/v1/pets', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"name":${raw},"categoryId":1}`,
      });
      expect(res.status, raw).toBe(400);
      expect((await res.json()).code).toBe('validation_failed');
    }
  });

  it('name: stored as sent, every later read returns it unchanged', async () => {
    for (const name of [
      '  padded  ',
      'Ünïcödé 🐈‍⬛',
      'e\u0301',
      '<script>',
      'O\'Brien "Rex"',
      'tab\there',
    ]) {
      await expectStoredAsSent(name);
    }
  });

  it('name: NUL, backslashes and control characters are stored as sent too', async () => {
    for (const name of ['a\u0000b', '\u0000', '\\0', 'back\\slash\\\\', '\u0001\u001f\u007f']) {
      await expectStoredAsSent(name);
    }
  });

  it('name: "only whitespace" is Unicode White_Space (NEL included)', async () => {
    await expectRefused({ name: '\u0085\u2029', categoryId: 1 }, 'name');
  });

  it('name: must be a string', async () => {
    await expectRefused({ name: 42, categoryId: 1 }, 'name');
    await expectRefused({ name: null, categoryId: 1 }, 'name');
    await expectRefused({ categoryId: 1 }, 'name');
  });

  it('categoryId: an integer from 1 to 2^53-1', async () => {
    const max = await create({ name: 'Max', categoryId: 9007199254740991 });
    expect(max.status).toBe(201);
    expect((await max.json()).categoryId).toBe(9007199254740991);
    expect((await create({ name: 'One', categoryId: 1 })).status).toBe(201);
  });

  it('categoryId: strings, fractions, zero, negatives and out-of-range are 400', async () => {
    for (const categoryId of [
      '1',
      1.5,
      0,
      -1,
      9007199254740992,
      1e300,
      null,
      true,
      [1],
      { id: 1 },
    ]) {
      await expectRefused({ name: 'Rex', categoryId }, 'categoryId');
    }
    await expectRefused({ name: 'Rex' }, 'categoryId');
  });

  it('status: available, pending or sold; omitted on creation means available', async () => {
    for (const status of ['available', 'pending', 'sold']) {
      const res = await create({ name: 'Rex', categoryId: 1, status });
      expect(res.status).toBe(201);
      expect((await res.json()).status).toBe(status);
    }
    const omitted = await create({ name: 'Rex', categoryId: 1 });
    expect((await omitted.json()).status).toBe('available');
    for (const status of ['AVAILABLE', 'adopted', '', null, 1]) {
      await expectRefused({ name: 'Rex', categoryId: 1, status }, 'status');
    }
  });

  it('id: a positive integer assigned by the service, increasing in creation order', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push((await (await create({ name: `Pet ${i}`, categoryId: 1 })).json()).id);
    }
    for (const [index, id] of ids.entries()) {
      expect(Number.isSafeInteger(id) && id > 0).toBe(true);
      if (index > 0) expect(id).toBeGreaterThan(ids[index - 1] ?? 0);
    }
  });

  it('a NewPet with fields other than name, categoryId, status is 400 validation_failed', async () => {
    await expectRefused({ name: 'Rex', categoryId: 1, id: 7 }, 'id');
    await expectRefused({ name: 'Rex', categoryId: 1, colour: 'brown' }, 'colour');
  });

  it('an empty body is 400 validation_failed', async () => {
    const res = await create({});
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('validation_failed');
    expect(body.details.map((detail: { path: string }) => detail.path).sort()).toEqual([
      'categoryId',
      'name',
    ]);
  });

  it('a Pet as returned has exactly id, name, categoryId, status', async () => {
    const created = await (await create({ name: 'Rex', categoryId: 2, status: 'sold' })).json();
    expect(Object.keys(created).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
    const listed = (await (await api.request('/v1/pets?limit=100')).json()) as object[];
    for (const pet of listed)
      expect(Object.keys(pet).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
  });
});
