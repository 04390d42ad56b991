/**
 * What a client may rely on after a run of requests: the pets the service acknowledged (201), and
 * nothing else. Tests record every acknowledgement here and compare the service against it.
 */
import { type Pet, PetSchema, type PetStatus } from '@animal-store/contract';
import { expect } from 'vitest';
import { z } from 'zod';
import { answerOf, expectWithinRules } from './response-rules.js';
import type { TestServer } from './test-server.js';

/** A pet as the service returns it: exactly four fields. */
export const STRICT_PET = PetSchema.strict();
const STRICT_PAGE = z.array(STRICT_PET);

export class AcknowledgedPets {
  readonly #pets = new Map<number, Pet>();
  #lastId = 0;

  /**
   * Records a pet the service answered 201 with. A new pet's id is above every earlier one (ids
   * increase in creation order); a replayed one must be the pet first acknowledged.
   */
  acknowledge(pet: Pet, { replayed = false } = {}): void {
    STRICT_PET.parse(pet);
    if (replayed) {
      expect(pet).toEqual(this.#pets.get(pet.id));
      return;
    }
    expect(pet.id, 'ids increase in creation order').toBeGreaterThan(this.#lastId);
    this.#lastId = pet.id;
    this.#pets.set(pet.id, pet);
  }

  get(id: number): Pet | undefined {
    return this.#pets.get(id);
  }

  get size(): number {
    return this.#pets.size;
  }

  /** Every acknowledged pet in ascending id order. */
  all(): Pet[] {
    return [...this.#pets.values()].sort((a, b) => a.id - b.id);
  }

  /** The page `listPets` must answer for this filter. */
  page(filter: { status?: PetStatus; afterId?: number; limit: number }) {
    const matching = this.all().filter(
      (pet) =>
        (filter.status === undefined || pet.status === filter.status) &&
        (filter.afterId === undefined || pet.id > filter.afterId),
    );
    return { pets: matching.slice(0, filter.limit), hasMore: matching.length > filter.limit };
  }
}

/** The URL of `rel="next"` in a `Link` header, if any. */
export function nextPageUrl(link: string | undefined): string | undefined {
  return link?.match(/^<([^>]+)>; rel="next"$/)?.[1];
}

/** Every pet `listPets` lists, walking every page by its `Link: rel="next"` from `firstPath`. */
export async function listEveryPage(api: TestServer, firstPath = '/v1/pets?limit=100') {
  const pets: Pet[] = [];
  let path: string | undefined = firstPath;
  while (path !== undefined) {
    const answer = await answerOf(await api.request(path));
    expectWithinRules(answer);
    expect(answer.status, answer.body).toBe(200);
    pets.push(...STRICT_PAGE.parse(JSON.parse(answer.body)));
    const next = nextPageUrl(answer.headers.link);
    if (next !== undefined) expect(new URL(next).origin).toBe(api.baseUrl);
    path = next === undefined ? undefined : next.slice(api.baseUrl.length);
  }
  return pets;
}

/** Every acknowledged pet is listed, unchanged, once, in ascending id order, and nothing else is. */
export async function expectListedUnchanged(api: TestServer, acknowledged: AcknowledgedPets) {
  const listed = await listEveryPage(api);
  expect(listed).toEqual(acknowledged.all());
  expect(await api.db.pet.count()).toBe(acknowledged.size);
}
