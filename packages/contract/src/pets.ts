import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorBodyWith } from './errors.js';
import { MAX_INTEGER_ID, PAGE_SIZE, PetNameSchema, wholeNumberInRange } from './fields.js';

const c = initContract();

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

export const PetStatusSchema = z.enum(PET_STATUSES, {
  errorMap: () => ({ message: `must be one of ${PET_STATUSES.join(', ')}` }),
});

export type PetStatus = z.infer<typeof PetStatusSchema>;

/**
 * How settled an operation is; carried as `x-stability` in the OpenAPI document.
 * The seed names `experimental` and `beta` markers; no v1 operation uses them.
 */
export type Stability = 'experimental' | 'beta' | 'stable' | 'deprecated';

/** The `metadata` every route of the contract carries. */
export interface RouteMetadata {
  /** The operation's name in the interface description, e.g. `listPets`. */
  readonly operationId: string;
  readonly stability: Stability;
}

const CategoryIdSchema = z
  .number({ required_error: 'is required', invalid_type_error: 'must be a whole number' })
  .int('must be a whole number')
  .min(1, `must be a whole number from 1 to ${MAX_INTEGER_ID}`)
  .max(MAX_INTEGER_ID, `must be a whole number from 1 to ${MAX_INTEGER_ID}`);

export const NewPetSchema = z
  .object(
    {
      name: PetNameSchema.describe(
        "The animal's name: 1 to 100 characters (Unicode code points) of well-formed Unicode (no lone surrogates), at least one of them not Unicode White_Space; stored exactly as sent",
      ),
      categoryId: CategoryIdSchema.describe('Identifier of the category the animal belongs to'),
      status: PetStatusSchema.default('available').describe(
        'Availability of the animal; `available` when omitted',
      ),
    },
    {
      required_error: 'a JSON object with name and categoryId is required',
      invalid_type_error: 'must be a JSON object',
    },
  )
  .strict('is not a field of NewPet');

/** The body of createPet as a caller writes it (`status` may be omitted). */
export type NewPet = z.input<typeof NewPetSchema>;

export const PetSchema = z.object({
  id: z
    .number()
    .int()
    .min(1)
    .max(MAX_INTEGER_ID)
    .describe('Unique identifier, assigned by the service, increasing in creation order'),
  name: z.string().describe("The animal's name, exactly as it was sent"),
  categoryId: CategoryIdSchema.describe('Identifier of the category the animal belongs to'),
  status: PetStatusSchema.describe('Availability of the animal'),
});

/** An animal as the service returns it: exactly `id`, `name`, `categoryId` and `status`. */
export type Pet = z.infer<typeof PetSchema>;

export const ListPetsQuerySchema = z.object({
  limit: wholeNumberInRange(PAGE_SIZE.min, PAGE_SIZE.max)
    .default(PAGE_SIZE.default)
    .describe('Maximum number of animals returned (1 to 100, default 20)'),
  status: PetStatusSchema.optional().describe('Only animals with this availability'),
  cursor: z
    .string({ invalid_type_error: 'must be given once' })
    .optional()
    .describe('Opaque cursor from the `Link: rel="next"` header of the previous page'),
});

const IdempotencyKeySchema = z
  .string({ invalid_type_error: 'must be given once' })
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters');

export const petsContract = c.router({
  listPets: {
    method: 'GET',
    path: '/pets',
    query: ListPetsQuerySchema,
    summary: 'List animals',
    description:
      'Animals in ascending `id` order, at most `limit` of them. When more results exist, the `Link` header carries the absolute `rel="next"` URL of the next page; the last page has none.',
    responses: {
      200: z.array(PetSchema),
      400: errorBodyWith('validation_failed', 'malformed_request'),
    },
    metadata: { operationId: 'listPets', stability: 'stable' } satisfies RouteMetadata,
  },
  createPet: {
    method: 'POST',
    path: '/pets',
    headers: z.object({
      'idempotency-key': IdempotencyKeySchema.optional().describe(
        'Makes the request safe to retry: a retry with the same key and the same body (for 24 hours at least) replays the first response with `Idempotent-Replayed: true` and creates nothing; the same key with a different body is 409',
      ),
    }),
    body: NewPetSchema,
    summary: 'Add an animal',
    description:
      'Creates the animal and answers with it and its `Location`. Send an `Idempotency-Key` to retry safely: a retry with the same key and body replays the first response.',
    responses: {
      201: PetSchema,
      400: errorBodyWith('validation_failed', 'malformed_json', 'malformed_request'),
      409: errorBodyWith('idempotency_key_reused'),
      413: errorBodyWith('payload_too_large'),
      415: errorBodyWith('unsupported_media_type'),
    },
    metadata: { operationId: 'createPet', stability: 'stable' } satisfies RouteMetadata,
  },
  getPet: {
    method: 'GET',
    path: '/pets/:petId',
    pathParams: z.object({
      petId: wholeNumberInRange(1, MAX_INTEGER_ID).describe(
        'The identifier of the animal; a value that is not a positive integer within the id range answers 404',
      ),
    }),
    summary: 'Get an animal (deprecated)',
    description:
      'Deprecated since 2025-01-01 and removed on 2030-12-05. Use `GET /v1/pets` with the `status` filter instead.',
    deprecated: true,
    responses: {
      200: PetSchema,
      400: errorBodyWith('malformed_request'),
      404: errorBodyWith('not_found'),
    },
    metadata: { operationId: 'getPet', stability: 'deprecated' } satisfies RouteMetadata,
  },
});
