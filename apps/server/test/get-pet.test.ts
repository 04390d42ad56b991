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
      // Percent-encoded digits: paths are exact, an id is its digits as sent.
      '%31',
      '1%32',
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

  it('concurrent lookups, read together, each answer their own pet, repeats and unknown ids too', async () => {
    const pets = await Promise.all(
      ['Ada', 'Bo', 'Cy'].map(async (name, index) => {
        const res = await api.request('/v1/pets', {
          method: 'POST',
          json: { name, categoryId: index + 1, status: 'sold' },
        });
        return res.json();
      }),
    );
    const ids = [...pets.map((pet) => pet.id), pets[0].id, 999_999, 9007199254740991, pets[2].id];
    const answers = await Promise.all(ids.map((id) => api.request(`/v1/pets/${id}`)));
    const bodies = await Promise.all(answers.map((res) => res.json()));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 404, 404, 200]);
    expect(bodies).toEqual([
      ...pets,
      pets[0],
      expect.objectContaining({ code: 'not_found', message: 'No pet has id 999999.' }),
      expect.objectContaining({ code: 'not_found', message: 'No pet has id 9007199254740991.' }),
      pets[2],
    ]);
  });
});
