import type { RunningServer } from './server-process.js';

export const SEED_PETS = 10_000;
const SEED_CONCURRENCY = 20;

export type PetStatus = 'available' | 'pending' | 'sold';

/** Half available, three in ten pending, two in ten sold: `status=available` pages are full. */
export function statusFor(index: number): PetStatus {
  const tenth = index % 10;
  if (tenth < 5) return 'available';
  return tenth < 8 ? 'pending' : 'sold';
}

/** The parsed body of a response that must have `status`; its text in the error otherwise. */
export async function expectStatus(
  response: Response,
  status: number,
  what: string,
): Promise<unknown> {
  const text = await response.text();
  if (response.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${response.status}: ${text.slice(0, 300)}`);
  }
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * Creates `count` pets (SEED_PETS unless a test asks for fewer) through the API,
 * SEED_CONCURRENCY at a time, and returns their ids: the `get` scenarios ask for pets that exist.
 */
export async function seedPets(
  server: Pick<RunningServer, 'origin' | 'label'>,
  apiKey: string,
  count = SEED_PETS,
): Promise<number[]> {
  const ids: number[] = [];
  let next = 0;
  async function worker() {
    while (next < count) {
      const index = next;
      next += 1;
      const response = await fetch(`${server.origin}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `Seed pet ${index}`,
          categoryId: 1 + (index % 25),
          status: statusFor(index),
        }),
      });
      const pet = (await expectStatus(response, 201, `${server.label}: seeding`)) as { id: number };
      ids.push(pet.id);
    }
  }
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return ids.sort((a, b) => a - b);
}
