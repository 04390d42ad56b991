/**
 * What each operation of the contract does, on the in-memory store. Its requests and answers are
 * typed from the contract's routes: a route the contract gains is a type error here until the
 * mock implements it.
 */
import { type Contract, type ErrorDetail, petsContract } from '@animal-store/contract';
import type { AppRoute, ServerInferRequest, ServerInferResponses } from '@ts-rest/core';
import { canonicalJson, type IdempotencyRecords } from './idempotency.js';
import type { PageCursors } from './page-cursor.js';
import type { PetStore } from './pet-store.js';

export interface OperationContext {
  readonly store: PetStore;
  readonly cursors: PageCursors;
  readonly idempotency: IdempotencyRecords;
  readonly nowMs: number;
  /** The origin `Link` URLs name: the public URL, else the one the request addressed. */
  readonly origin: string;
  /** The valid API key the request carries: operations run for no other. */
  readonly apiKey: string;
  /** The JSON body as sent, before the schema defaulted anything. */
  readonly sentBody: unknown;
}

/** An answer of the route, as the contract types it, with the headers particular to it. */
export type Answer<R extends AppRoute> = ServerInferResponses<R> & {
  readonly headers?: Record<string, string>;
};

export interface Implementation<R extends AppRoute> {
  /** Checks the schemas cannot make (a cursor's signature), reported with theirs. */
  readonly check?: (
    raw: { query: Record<string, unknown> },
    context: OperationContext,
  ) => Promise<ErrorDetail[]>;
  readonly run: (request: ServerInferRequest<R>, context: OperationContext) => Promise<Answer<R>>;
}

type Implementations = {
  readonly [Resource in keyof Contract]: {
    readonly [Name in keyof Contract[Resource]]: Contract[Resource][Name] extends AppRoute
      ? Implementation<Contract[Resource][Name]>
      : never;
  };
};

const { listPets } = petsContract;

function nextPageLink(
  context: OperationContext,
  query: { limit: number; status?: string | undefined },
  cursor: string,
): string {
  const next = new URL(listPets.path, context.origin);
  next.searchParams.set('limit', String(query.limit));
  if (query.status !== undefined) next.searchParams.set('status', query.status);
  next.searchParams.set('cursor', cursor);
  return `<${next}>; rel="next"`;
}

export const IMPLEMENTATIONS: Implementations = {
  pets: {
    listPets: {
      async check({ query }, { cursors }) {
        const { cursor } = query;
        if (typeof cursor !== 'string' || (await cursors.decode(cursor)) !== undefined) return [];
        return [{ path: 'cursor', message: 'is not a cursor this service issued' }];
      },
      async run({ query }, context) {
        const afterId =
          query.cursor === undefined ? 0 : ((await context.cursors.decode(query.cursor)) ?? 0);
        const { pets, more } = context.store.page({
          limit: query.limit,
          afterId,
          ...(query.status !== undefined && { status: query.status }),
        });
        const last = pets.at(-1);
        if (!more || last === undefined) return { status: 200, body: pets };
        const cursor = await context.cursors.encode(last.id);
        return { status: 200, body: pets, headers: { Link: nextPageLink(context, query, cursor) } };
      },
    },
    createPet: {
      async run({ body, headers }, context) {
        const key = headers['idempotency-key'];
        const sent = canonicalJson(context.sentBody);
        const earlier =
          key === undefined
            ? undefined
            : context.idempotency.find(context.apiKey, key, context.nowMs);
        if (earlier !== undefined) {
          if (earlier.body !== sent) {
            return {
              status: 409,
              body: {
                code: 'idempotency_key_reused',
                message: 'This Idempotency-Key was already used with a different body.',
                status: 409,
              },
            };
          }
          return {
            status: 201,
            body: earlier.pet,
            headers: createdHeaders(earlier.pet.id, { replayed: true }),
          };
        }
        const pet = context.store.add(body);
        if (pet === undefined) {
          // Every id up to 2^53 - 1 is used: the interface creates nothing and answers 500.
          return {
            status: 500,
            body: {
              code: 'internal_error',
              message:
                'Something went wrong on our side. The request ID identifies it in our logs.',
              status: 500,
            },
          };
        }
        if (key !== undefined)
          context.idempotency.remember(context.apiKey, key, sent, pet, context.nowMs);
        return { status: 201, body: pet, headers: createdHeaders(pet.id) };
      },
    },
    getPet: {
      async run({ params }, { store }) {
        const pet = store.get(params.petId);
        if (pet !== undefined) return { status: 200, body: pet };
        return {
          status: 404,
          body: { code: 'not_found', message: `No pet has id ${params.petId}.`, status: 404 },
        };
      },
    },
  },
};

/**
 * A 201's headers: `Location: /v1/pets/{id}` (the getPet route's path, a relative reference, as
 * the interface says), and `Idempotent-Replayed: true` on a replay.
 */
function createdHeaders(id: number, { replayed = false } = {}): Record<string, string> {
  const location = petsContract.getPet.path.replace(':petId', String(id));
  return replayed ? { Location: location, 'Idempotent-Replayed': 'true' } : { Location: location };
}
