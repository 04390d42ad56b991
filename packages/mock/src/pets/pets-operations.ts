/**
 * What each pets operation does, on the catalogue in memory. Requests and answers are typed from
 * the contract's routes: an operation the contract gains is a type error here until it has an
 * implementation.
 */
import { ERROR_MESSAGES, errorBodyOf, petsContract } from '@animal-store/contract';
import { requestFingerprint } from '@animal-store/contract/rules';
import type { Implementations, OperationContext } from '../mocked-api.js';
import type { IdempotencyRecords } from './idempotency.js';
import type { PageCursors } from './page-cursor.js';
import type { PetStore } from './pet-store.js';

/** What the pets operations keep between requests. */
export interface PetsState {
  readonly store: PetStore;
  readonly cursors: PageCursors;
  readonly idempotency: IdempotencyRecords;
}

/** How a cursor this mock did not issue is reported: a field of the query that is invalid. */
const UNISSUED_CURSOR = { path: 'cursor', message: 'is not a cursor this service issued' };

function nextPageLink(
  { origin }: OperationContext,
  query: { limit: number; status?: string | undefined },
  cursor: string,
): string {
  const next = new URL(petsContract.listPets.path, origin);
  next.searchParams.set('limit', String(query.limit));
  if (query.status !== undefined) next.searchParams.set('status', query.status);
  next.searchParams.set('cursor', cursor);
  return `<${next}>; rel="next"`;
}

/**
 * A 201's headers: `Location: /v1/pets/{id}` (the getPet route's path, a relative reference, as
 * the interface says), and `Idempotent-Replayed: true` on a replay.
 */
function createdHeaders(id: number, { replayed = false } = {}): Record<string, string> {
  const location = petsContract.getPet.path.replace(':petId', String(id));
  return replayed ? { Location: location, 'Idempotent-Replayed': 'true' } : { Location: location };
}

export function petsOperations({
  store,
  cursors,
  idempotency,
}: PetsState): Implementations<typeof petsContract> {
  return {
    listPets: {
      async check({ query }) {
        const { cursor } = query;
        if (typeof cursor !== 'string' || (await cursors.decode(cursor)) !== undefined) return [];
        return [UNISSUED_CURSOR];
      },
      async run({ query }, context) {
        const afterId =
          query.cursor === undefined ? 0 : ((await cursors.decode(query.cursor)) ?? 0);
        const { pets, more } = store.page({
          limit: query.limit,
          afterId,
          ...(query.status !== undefined && { status: query.status }),
        });
        const last = pets.at(-1);
        if (!more || last === undefined) return { status: 200, body: pets };
        const cursor = await cursors.encode(last.id);
        return { status: 200, body: pets, headers: { Link: nextPageLink(context, query, cursor) } };
      },
    },
    createPet: {
      async run({ body, headers }, { apiKey, nowMs, sentBody }) {
        const key = headers['idempotency-key'];
        const fingerprint = requestFingerprint(sentBody);
        const earlier =
          key === undefined ? undefined : idempotency.answer(apiKey, key, fingerprint, nowMs);
        if (earlier?.answer === 'conflict') {
          return { status: 409, body: errorBodyOf(ERROR_MESSAGES.idempotencyKeyReused) };
        }
        if (earlier?.answer === 'replay') {
          return {
            status: 201,
            body: earlier.pet,
            headers: createdHeaders(earlier.pet.id, { replayed: true }),
          };
        }
        const pet = store.add(body);
        // Every id up to 2^53 - 1 is used: the interface creates nothing and answers 500.
        if (pet === undefined) return { status: 500, body: errorBodyOf(ERROR_MESSAGES.internal) };
        if (key !== undefined) idempotency.remember(apiKey, key, fingerprint, pet, nowMs);
        return { status: 201, body: pet, headers: createdHeaders(pet.id) };
      },
    },
    getPet: {
      async run({ params }) {
        const pet = store.get(params.petId);
        if (pet !== undefined) return { status: 200, body: pet };
        return {
          status: 404,
          body: errorBodyOf(ERROR_MESSAGES.noSuchResource('petId', params.petId)),
        };
      },
    },
  };
}
