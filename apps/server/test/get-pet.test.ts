import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

const DEPRECATION_HEADERS = {
  deprecation: '@1735689600',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
};

function expectDeprecationHeaders(res: { headers: Headers }) {
  for (const [name, value] of Object.entries(DEPRECATION_HEADERS)) {
    expect(res.headers.get(name)).toBe(value);
  }
}

describe('getPet (deprecated)', () => {
  it('returns the pet with exactly id, name, categoryId, status', async () => {
    const created = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'Rex', categoryId: 3 },
    });
    const pet = await created.json();
    const res = await api.request(`/v1/pets/${pet.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: pet.id,
      name: 'Rex',
      categoryId: 3,
      status: 'available',
    });
    expectDeprecationHeaders(res);
  });

  it('an unknown pet is 404 not_found', async () => {
    const res = await api.request('/v1/pets/999999');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found', status: 404 });
    expectDeprecationHeaders(res);
  });

  it('a petId that is not a positive integer within the id range is 404', async () => {
    for (const petId of [
      '0',
      '-1',
      'abc',
      '1.5',
      '1e3',
      '01',
      '%20',
      '9007199254740992',
      '99999999999999999999999',
      '%E0%A4%A',
    ]) {
      const res = await api.request(`/v1/pets/${petId}`);
      expect(res.status, petId).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toMatchObject({ code: 'not_found', status: 404 });
      expectDeprecationHeaders(res);
    }
  });

  it('the largest id in range is looked up, not refused', async () => {
    const res = await api.request('/v1/pets/9007199254740991');
    expect(res.status).toBe(404);
  });
});
