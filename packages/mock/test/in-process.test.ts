/** The handler alone, as a client's `fetch`: no port, no network. */
import { createClient } from '@animal-store/client';
import { expect, test } from 'vitest';
import { createMock } from '../src/index.js';

test('a client on mock.fetch reads a seed of its own; a dropped connection rejects as fetch does', async () => {
  const mock = createMock({ seed: [{ name: 'Rex', categoryId: 1 }] });
  const client = createClient({
    baseUrl: 'http://mock.invalid',
    apiKey: mock.keys.enterprise,
    fetch: mock.fetch,
    retry: false,
  });
  const listed = await client.pets.listPets();
  expect(listed.body).toEqual([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
  expect(client.rateLimit).toMatchObject({ limit: 120, remaining: 119 });

  mock.misbehave({ times: 1, kind: 'drop' });
  await expect(mock.fetch('http://mock.invalid/v1/pets')).rejects.toThrow(TypeError);
});

test('a seed that is not a NewPet is refused when the mock is made', () => {
  expect(() => createMock({ seed: [{ name: ' ', categoryId: 0 }] })).toThrow(/seed pet 0/);
});
