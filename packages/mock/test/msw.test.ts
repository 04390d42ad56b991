/**
 * The mock behind MSW (msw/node): a program that calls fetch itself, here the client, talks to an
 * origin that does not exist and is answered by the mock, faults included.
 */
import { createClient, type DeprecationNotice } from '@animal-store/client';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { createMock, manualClock } from '../src/index.js';
import { mswHandlers } from '../src/msw.js';

const baseUrl = 'https://api.animal-store.test';
const mock = createMock({ clock: manualClock() });
const network = setupServer(...mswHandlers(mock, { baseUrl: `${baseUrl}/v1` }));

beforeAll(() => network.listen({ onUnhandledRequest: 'error' }));
afterAll(() => network.close());
beforeEach(() => mock.reset());

test('the client lists, creates and pages against the fake origin, Link URLs on that origin', async () => {
  const client = createClient({ baseUrl, apiKey: mock.keys.business, retry: false });
  const created = await client.pets.createPet({ body: { name: 'Rex', categoryId: 7 } });
  expect(created).toMatchObject({ status: 201, body: { id: 7, name: 'Rex', status: 'available' } });
  expect(created.headers.get('location')).toBe('/v1/pets/7');

  const page = await client.pets.listPets({ query: { limit: 5 } });
  expect(page.status).toBe(200);
  expect(page.headers.get('link')).toMatch(
    new RegExp(`^<${baseUrl}/v1/pets\\?limit=5&cursor=5\\.[\\w-]{22}>; rel="next"$`),
  );
  expect(client.rateLimit).toMatchObject({ limit: 1000, remaining: 998 });
});

test("getPet's answers carry the deprecation headers the contract gives it, and the client tells once", async () => {
  const notices: DeprecationNotice[] = [];
  const client = createClient({
    baseUrl,
    apiKey: mock.keys.pro,
    retry: false,
    onDeprecation: (notice) => notices.push(notice),
  });
  expect((await client.pets.getPet({ params: { petId: 1 } })).body).toMatchObject({
    name: 'Biscuit',
  });
  expect((await client.pets.getPet({ params: { petId: 99 } })).status).toBe(404);
  expect(notices).toHaveLength(1);
  expect(notices[0]).toMatchObject({ operation: 'getPet', deprecation: '@1735689600' });
});

test('a dropped connection is a network error through MSW too', async () => {
  mock.misbehave({ times: 1, kind: 'drop' });
  const client = createClient({ baseUrl, apiKey: mock.keys.pro, retry: false });
  await expect(client.pets.listPets()).rejects.toThrow();
  expect((await client.pets.listPets()).status).toBe(200);
});

test('a revoked key is refused with the invalid_token challenge', async () => {
  const client = createClient({ baseUrl, apiKey: mock.keys.revoked, retry: false });
  const refused = await client.pets.listPets();
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toBe(
    'Bearer realm="animal-store", error="invalid_token"',
  );
});
