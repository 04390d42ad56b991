import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import type { Deprecation } from './deprecation.js';
import { documented, type HeaderDocumentation } from './documentation.js';
import { ERROR_MESSAGES, MALFORMED_REQUEST_EXAMPLE } from './error-messages.js';
import { errorResponse } from './errors.js';
import {
  MAX_INTEGER_ID,
  PAGE_SIZE,
  PET_NAME_KEYWORDS,
  PetNameSchema,
  wholeNumberInRange,
} from './fields.js';
import type { RouteMetadata } from './route-metadata.js';

const c = initContract();

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

const STATUS_MESSAGE = `must be one of ${PET_STATUSES.join(', ')}`;

export const PetStatusSchema = z.enum(PET_STATUSES, {
  errorMap: () => ({ message: STATUS_MESSAGE }),
});

/** A query's `status`: a repeated one arrives as a list, which is not one of them either. */
const StatusFilterSchema = z.enum(PET_STATUSES, {
  errorMap: (issue) => ({
    message: issue.code === 'invalid_type' ? `${STATUS_MESSAGE}, given once` : STATUS_MESSAGE,
  }),
});

export type PetStatus = z.infer<typeof PetStatusSchema>;

/** getPet's deprecation and removal, as the `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers carry them. */
export const GET_PET_DEPRECATION = {
  deprecatedAt: new Date('2025-01-01T00:00:00Z'),
  sunsetAt: new Date('2030-12-05T00:00:00Z'),
  successor: '/v1/pets',
} as const satisfies Deprecation;

/** `2025-01-01`: the day of an instant, in UTC. */
const day = (date: Date) => date.toISOString().slice(0, 10);

const CategoryIdSchema = documented(
  z
    .number({ required_error: 'is required', invalid_type_error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, `must be a whole number from 1 to ${MAX_INTEGER_ID}`)
    .max(MAX_INTEGER_ID, `must be a whole number from 1 to ${MAX_INTEGER_ID}`),
  { format: 'int64', description: 'Identifier of the category the animal belongs to' },
);

const PET_EXAMPLE = { id: 42, name: 'Rex', categoryId: 1, status: 'available' } as const;

export const NewPetSchema = documented(
  z
    .object(
      {
        name: documented(PetNameSchema, {
          description:
            "The animal's name: 1 to 100 characters (Unicode code points) of well-formed Unicode (no lone surrogates), at least one of them not Unicode White_Space; stored exactly as sent",
        }),
        categoryId: CategoryIdSchema,
        status: PetStatusSchema.default('available').describe(
          'Availability of the animal; `available` when omitted',
        ),
      },
      {
        required_error: 'a JSON object with name and categoryId is required',
        invalid_type_error: 'must be a JSON object',
      },
    )
    .strict('is not a field of NewPet'),
  {
    title: 'NewPet',
    description: 'An animal to add; fields other than these three are refused',
    example: { name: PET_EXAMPLE.name, categoryId: PET_EXAMPLE.categoryId },
  },
);

/** The body of createPet as a caller writes it (`status` may be omitted). */
export type NewPet = z.input<typeof NewPetSchema>;

export const PetSchema = documented(
  z.object({
    id: documented(z.number().int().min(1).max(MAX_INTEGER_ID), {
      format: 'int64',
      description: 'Unique identifier, assigned by the service, increasing in creation order',
    }),
    // Checked as sent, not again as returned: the rules are documented all the same.
    name: documented(z.string(), {
      ...PET_NAME_KEYWORDS,
      description: "The animal's name, exactly as it was sent",
    }),
    categoryId: CategoryIdSchema,
    status: PetStatusSchema.describe('Availability of the animal'),
  }),
  { title: 'Pet', description: 'An animal as the service returns it', example: PET_EXAMPLE },
);

/** An animal as the service returns it: exactly `id`, `name`, `categoryId` and `status`. */
export type Pet = z.infer<typeof PetSchema>;

export const ListPetsQuerySchema = z.object({
  limit: wholeNumberInRange(PAGE_SIZE.min, PAGE_SIZE.max)
    .default(PAGE_SIZE.default)
    .describe('Maximum number of animals returned (1 to 100, default 20)'),
  status: StatusFilterSchema.optional().describe('Only animals with this availability'),
  cursor: z
    .string({ invalid_type_error: 'must be given once' })
    .optional()
    .describe('Opaque cursor from the `Link: rel="next"` header of the previous page'),
});

const IdempotencyKeySchema = z
  .string({ invalid_type_error: 'must be given once' })
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters');

const NEXT_PAGE_LINK: HeaderDocumentation = {
  description:
    'When more results exist, the absolute URL of the next page (RFC 8288, `rel="next"`): it keeps `limit` and `status` and adds an opaque `cursor`. The last page has none.',
  schema: { type: 'string' },
  example:
    '<https://api.animal-store.example/v1/pets?limit=20&status=available&cursor=20.Qk9XcbMRsdl7t0FnVUf8aA>; rel="next"',
};

const LOCATION: HeaderDocumentation = {
  required: true,
  component: 'Location',
  description: 'The path of the created animal, `/v1/pets/{id}`',
  schema: { type: 'string', format: 'uri-reference' },
  example: '/v1/pets/42',
};

const IDEMPOTENT_REPLAYED: HeaderDocumentation = {
  description:
    '`true` when this response replays the first response to the same `Idempotency-Key` and body; nothing was created',
  schema: { type: 'string', enum: ['true'] },
};

export const petsRoutes = c.router({
  listPets: {
    method: 'GET',
    path: '/pets',
    query: ListPetsQuerySchema,
    summary: 'List animals',
    description:
      'Animals in ascending `id` order, at most `limit` of them. When more results exist, the `Link` header carries the absolute `rel="next"` URL of the next page; the last page has none.',
    responses: {
      200: z.array(PetSchema),
      400: errorResponse({
        name: 'InvalidQuery',
        description:
          'A query parameter is invalid (`validation_failed`: `details` names each one), or the request is not one the server can read (`malformed_request`)',
        examples: {
          validation_failed: {
            message: ERROR_MESSAGES.invalidFields(['limit']).message,
            details: [{ path: 'limit', message: 'must be a whole number from 1 to 100' }],
          },
          malformed_request: MALFORMED_REQUEST_EXAMPLE,
        },
      }),
    },
    metadata: {
      operationId: 'listPets',
      stability: 'stable',
      responses: {
        200: {
          description: 'A page of animals, in ascending `id` order',
          headers: { Link: NEXT_PAGE_LINK },
        },
      },
    } as const satisfies RouteMetadata,
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
      400: errorResponse({
        name: 'InvalidPetBody',
        description:
          'The body or the `Idempotency-Key` is invalid (`validation_failed`: `details` names each invalid field), the body is not JSON in UTF-8 (`malformed_json`), or the request is not one the server can read (`malformed_request`)',
        examples: {
          validation_failed: {
            message: ERROR_MESSAGES.invalidFields(['name']).message,
            details: [{ path: 'name', message: 'is required' }],
          },
          malformed_json: { message: ERROR_MESSAGES.bodyNotJson.message },
          malformed_request: MALFORMED_REQUEST_EXAMPLE,
        },
      }),
      409: errorResponse({
        name: 'IdempotencyKeyReused',
        description: 'The `Idempotency-Key` was already used with a different body',
        examples: {
          idempotency_key_reused: {
            message: ERROR_MESSAGES.idempotencyKeyReused.message,
          },
        },
      }),
      413: errorResponse({
        name: 'PayloadTooLarge',
        description: 'The body is larger than 16 KiB',
        examples: { payload_too_large: { message: ERROR_MESSAGES.bodyTooLarge.message } },
      }),
      415: errorResponse({
        name: 'UnsupportedMediaType',
        description:
          'A non-empty body was sent without `Content-Type: application/json`, in a charset other than UTF-8, or with an unsupported `Content-Encoding`',
        examples: {
          unsupported_media_type: {
            message: ERROR_MESSAGES.bodyNotDeclaredJson.message,
          },
        },
      }),
    },
    metadata: {
      operationId: 'createPet',
      stability: 'stable',
      requestBody: { description: 'The animal to add' },
      responses: {
        201: {
          description: 'The created animal (or, with `Idempotent-Replayed`, the one created first)',
          headers: { Location: LOCATION, 'Idempotent-Replayed': IDEMPOTENT_REPLAYED },
        },
      },
    } as const satisfies RouteMetadata,
  },
  getPet: {
    method: 'GET',
    path: '/pets/:petId',
    pathParams: z.object({
      petId: documented(wholeNumberInRange(1, MAX_INTEGER_ID), {
        format: 'int64',
        description:
          'The identifier of the animal; a value that is not a positive integer within the id range answers 404',
      }),
    }),
    summary: 'Get an animal (deprecated)',
    description: `Deprecated since ${day(GET_PET_DEPRECATION.deprecatedAt)} and removed on ${day(GET_PET_DEPRECATION.sunsetAt)}. Use \`GET ${GET_PET_DEPRECATION.successor}\` with the \`status\` filter instead.`,
    deprecated: true,
    responses: {
      200: PetSchema,
      400: errorResponse({
        name: 'MalformedRequest',
        description:
          'The request is not one the server can read (`malformed_request`): a missing, repeated or invalid `Host`, a `#` in the target, or bytes that are not HTTP',
        examples: { malformed_request: MALFORMED_REQUEST_EXAMPLE },
      }),
      404: errorResponse({
        name: 'NotFound',
        description:
          'No animal has this id, or `petId` is not a positive integer within the id range',
        examples: {
          not_found: { message: ERROR_MESSAGES.noSuchResource('petId', MAX_INTEGER_ID).message },
        },
      }),
    },
    metadata: {
      operationId: 'getPet',
      stability: 'deprecated',
      deprecation: GET_PET_DEPRECATION,
      responses: { 200: { description: 'The animal' } },
    } as const satisfies RouteMetadata,
  },
});
