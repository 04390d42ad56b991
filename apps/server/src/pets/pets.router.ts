import { hash } from 'node:crypto';
import { ERROR_MESSAGES, errorBodyOf, type Pet, petsContract } from '@animal-store/contract';
import { requestFingerprint } from '@animal-store/contract/rules';
import { initServer, RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { ZodError } from 'zod';
import { contextOf } from '../http/request-context.js';
import { requestOrigin } from '../http/request-head.js';
import type { IdempotencyOutcome } from '../operations/metrics.js';
import { createPetOnce } from './idempotent-create.js';
import type { PageCursorCodec } from './page-cursor.js';
import type { PetStore } from './pet-store.js';

const s = initServer();

const IDEMPOTENCY_OUTCOMES = {
  created: 'created',
  replayed: 'replayed',
  conflict: 'key_reused',
} as const satisfies Record<string, IdempotencyOutcome>;

/**
 * The body's fingerprint (the interface's: key order and spacing do not change it), stored as
 * its SHA-256 so that a record's size does not grow with the body.
 */
function hashOf(body: unknown): string {
  return hash('sha256', requestFingerprint(body), 'base64url');
}

export interface PetsRouterDeps {
  /** The pet store, as the request that `res` answers calls it. */
  storeFor: (res: Response) => PetStore;
  cursors: () => Promise<PageCursorCodec>;
  /** Absolute origin for `Link` URLs (`PUBLIC_URL`), else the request's own. */
  publicUrl: string | undefined;
  /** Told how each create with an `Idempotency-Key` went. */
  onIdempotentCreate: (outcome: IdempotencyOutcome) => void;
}

type PageRequest = Pick<Request, 'protocol' | 'headers' | 'socket' | 'baseUrl' | 'path'>;

function nextPageUrl(
  req: PageRequest,
  publicUrl: string | undefined,
  params: Record<string, string>,
) {
  const origin = publicUrl ?? requestOrigin(req);
  return `${origin}${req.baseUrl}${req.path}?${new URLSearchParams(params)}`;
}

/** How a cursor this service did not issue is reported: a field of the query that is invalid. */
const UNISSUED_CURSOR = { path: 'cursor', message: 'is not a cursor this service issued' };

/**
 * Adds the cursor to the invalid fields of a list request refused for others: the contract
 * cannot check a cursor's signature, so the handler does, and a request refused before it runs
 * would otherwise name every invalid field but this one. Where the cursor key cannot be read
 * (the database is away), the refusal goes out as it is. An error stage: a valid request pays
 * nothing for it.
 */
export function unissuedCursorReporter(
  cursors: () => Promise<PageCursorCodec>,
): ErrorRequestHandler {
  const addIssue = async (invalidQuery: ZodError, cursor: string) => {
    const codec = await cursors().catch(() => undefined);
    if (!codec || codec.decode(cursor) !== undefined) return;
    invalidQuery.addIssue({
      code: 'custom',
      path: [UNISSUED_CURSOR.path],
      message: UNISSUED_CURSOR.message,
    });
  };
  return (error, req, _res, next) => {
    const { cursor } = req.query;
    if (!(error instanceof RequestValidationError) || !error.query || typeof cursor !== 'string') {
      return next(error);
    }
    // The refusal goes out whatever happens here: never a 500 in place of its 400.
    addIssue(error.query, cursor)
      .catch(() => {})
      .then(() => next(error));
  };
}

/** Whose keys an `Idempotency-Key` belongs to: the caller's API key, as admission resolved it. */
function idempotencyScope(res: Response): string {
  const { caller } = contextOf(res);
  return caller.kind === 'key' ? caller.key.id : 'anonymous';
}

export function createPetsRouter(deps: PetsRouterDeps) {
  return s.router(petsContract, {
    listPets: async ({ query, req, res }) => {
      const cursors = await deps.cursors();
      const afterId = query.cursor === undefined ? undefined : cursors.decode(query.cursor);
      if (query.cursor !== undefined && afterId === undefined) {
        return {
          status: 400,
          body: errorBodyOf(ERROR_MESSAGES.invalidFields([UNISSUED_CURSOR.path]), [
            UNISSUED_CURSOR,
          ]),
        };
      }
      const page = await deps
        .storeFor(res)
        .listPage({ status: query.status, afterId, limit: query.limit });
      const last = page.pets.at(-1);
      if (page.hasMore && last) {
        const params: Record<string, string> = { limit: String(query.limit) };
        if (query.status) params.status = query.status;
        params.cursor = cursors.encode(last.id);
        res.setHeader('Link', `<${nextPageUrl(req, deps.publicUrl, params)}>; rel="next"`);
      }
      return { status: 200, body: page.pets };
    },

    createPet: async ({ body, headers, req, res }) => {
      const store = deps.storeFor(res);
      const key = headers['idempotency-key'];
      const result = key
        ? await createPetOnce(store, body, {
            scope: idempotencyScope(res),
            key,
            requestHash: hashOf(req.body),
          })
        : { outcome: 'created' as const, pet: (await store.insertPets([body]))[0] as Pet };
      if (key) deps.onIdempotentCreate(IDEMPOTENCY_OUTCOMES[result.outcome]);
      if (result.outcome === 'conflict') {
        return {
          status: 409,
          body: errorBodyOf(ERROR_MESSAGES.idempotencyKeyReused),
        };
      }
      res.setHeader('Location', `/v1/pets/${result.pet.id}`);
      if (result.outcome === 'replayed') res.setHeader('Idempotent-Replayed', 'true');
      return { status: 201, body: result.pet };
    },

    getPet: async ({ params, res }) => {
      const [pet] = await deps.storeFor(res).findPets([params.petId]);
      if (!pet) {
        return {
          status: 404,
          body: errorBodyOf(ERROR_MESSAGES.noSuchResource('petId', params.petId)),
        };
      }
      return { status: 200, body: pet };
    },
  });
}
