import { generateSchema } from '@anatine/zod-openapi';
import type { AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import type {
  HeaderObject,
  HeadersObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts';
import { z } from 'zod';
import { ErrorBodySchema } from './errors.js';
import { MAX_INTEGER_ID, PAGE_SIZE, PET_NAME_MAX_LENGTH } from './fields.js';
import { API_VERSION, contract, GET_PET_DEPRECATION_HEADERS } from './index.js';
import { NewPetSchema, PetSchema, type RouteMetadata } from './pets.js';

export type { OpenAPIObject } from 'openapi3-ts';

export interface BuildOpenApiDocumentOptions {
  /**
   * Origin the API is served from, e.g. `https://api.animal-store.example`, without the
   * `/v1` prefix: the document's paths carry it. Defaults to `/` (same origin as the document).
   */
  serverUrl?: string;
}

type OperationId = 'listPets' | 'createPet' | 'getPet';

const SECURITY_SCHEME = 'bearerAuth';

const ref = (kind: 'schemas' | 'headers' | 'parameters', name: string): ReferenceObject => ({
  $ref: `#/components/${kind}/${name}`,
});

// ---------------------------------------------------------------------------------------------
// Schemas

const ID_SCHEMA: SchemaObject = {
  type: 'integer',
  format: 'int64',
  minimum: 1,
  maximum: MAX_INTEGER_ID,
};

/**
 * Fields whose zod schema the converter cannot read: `PetNameSchema` is a refinement (code
 * points, whitespace, well-formedness), `wholeNumberInRange` is a number-or-text transform that
 * renders as `oneOf`, and zod has no int64 format. From what the converter made of them only the
 * description and the default are kept. The JSON Schema length of a string counts code points,
 * and `\S` is exactly "not only whitespace" as `String.prototype.trim` sees it.
 */
const FIELD_SCHEMAS: Readonly<Record<string, SchemaObject>> = {
  id: ID_SCHEMA,
  categoryId: ID_SCHEMA,
  petId: ID_SCHEMA,
  name: { type: 'string', minLength: 1, maxLength: PET_NAME_MAX_LENGTH, pattern: '\\S' },
  limit: { type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max },
};

function documentField(name: string, generated: SchemaObject): SchemaObject {
  const fixed = FIELD_SCHEMAS[name];
  if (!fixed) return generated;
  const { description, default: defaultValue } = generated;
  return {
    ...fixed,
    ...(defaultValue !== undefined && { default: defaultValue }),
    ...(description !== undefined && { description }),
  };
}

function documentObject(
  generated: SchemaObject,
  extra: Pick<SchemaObject, 'description' | 'example'>,
): SchemaObject {
  const properties = Object.fromEntries(
    Object.entries(generated.properties ?? {}).map(([name, schema]) => [
      name,
      documentField(name, schema as SchemaObject),
    ]),
  );
  return { ...generated, ...extra, properties };
}

const PET_EXAMPLE = { id: 42, name: 'Rex', categoryId: 1, status: 'available' } as const;

function componentSchemas(): Record<string, SchemaObject> {
  return {
    Pet: documentObject(generateSchema(PetSchema, true), {
      description: 'An animal as the service returns it',
      example: PET_EXAMPLE,
    }),
    NewPet: documentObject(generateSchema(NewPetSchema, false), {
      description: 'An animal to add; fields other than these three are refused',
      example: { name: PET_EXAMPLE.name, categoryId: PET_EXAMPLE.categoryId },
    }),
    Error: {
      ...generateSchema(ErrorBodySchema, true),
      description: 'The body of every error response',
      example: { code: 'not_found', message: 'No animal has the id 42', status: 404 },
    },
  };
}

/** Response and request bodies that are documented once, as a component. */
const SCHEMA_COMPONENTS = new Map<unknown, string>([
  [PetSchema, 'Pet'],
  [NewPetSchema, 'NewPet'],
]);

/**
 * The codes an error response can carry, when `schema` is the Error body: `errorBodyWith()`
 * extends `ErrorBodySchema`, so every field but `code` is the very same zod instance.
 */
function errorCodesOf(schema: unknown): readonly string[] | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  const shape: Record<string, unknown> = schema.shape;
  if (shape.message !== ErrorBodySchema.shape.message) return undefined;
  return shape.code instanceof z.ZodEnum ? shape.code.options : undefined;
}

function bodySchema(
  zodSchema: unknown,
  status: string,
  generated: SchemaObject | ReferenceObject | undefined,
): SchemaObject | ReferenceObject | undefined {
  const component = SCHEMA_COMPONENTS.get(zodSchema);
  if (component) return ref('schemas', component);
  if (zodSchema instanceof z.ZodArray) {
    const items = SCHEMA_COMPONENTS.get(zodSchema.element);
    if (items) return { type: 'array', items: ref('schemas', items) };
  }
  const codes = errorCodesOf(zodSchema);
  if (codes) {
    return {
      allOf: [
        ref('schemas', 'Error'),
        {
          type: 'object',
          properties: {
            code: { type: 'string', enum: [...codes] },
            status: { type: 'integer', enum: [Number(status)] },
          },
        },
      ],
    };
  }
  return generated;
}

// ---------------------------------------------------------------------------------------------
// Headers

/**
 * Every response header of the API, once. ts-rest contracts have no slot for response headers
 * (ts-rest issue #833): the server sets them in middleware, and this table documents them.
 */
const HEADERS = {
  RateLimitLimit: {
    name: 'X-RateLimit-Limit',
    required: true,
    description:
      "The request limit of the binding window (the UTC calendar minute or day) of the caller's plan",
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitRemaining: {
    name: 'X-RateLimit-Remaining',
    required: true,
    description: 'Requests remaining in the binding window; never below 0',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitReset: {
    name: 'X-RateLimit-Reset',
    required: true,
    description: 'When the binding window resets, as a Unix time in seconds',
    schema: { type: 'integer', format: 'int64', minimum: 0 },
    example: 1767225600,
  },
  RequestId: {
    name: 'X-Request-Id',
    required: true,
    description:
      'The `X-Request-Id` of the request when it is 1 to 128 letters, digits and `-_.:`, else a new id; the server logs it with the request',
    schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' },
  },
  RetryAfter: {
    name: 'Retry-After',
    required: true,
    description:
      'Seconds until a request would be accepted again (for `temporarily_banned`, the seconds left in the ban)',
    schema: { type: 'integer', minimum: 1 },
    example: 30,
  },
  WwwAuthenticate: {
    name: 'WWW-Authenticate',
    required: true,
    description:
      'The challenge: `Bearer realm="animal-store"`, with `error="invalid_token"` when a key was sent but is not valid',
    schema: { type: 'string' },
    example: 'Bearer realm="animal-store", error="invalid_token"',
  },
  NextPageLink: {
    name: 'Link',
    description:
      'When more results exist, the absolute URL of the next page (RFC 8288, `rel="next"`): it keeps `limit` and `status` and adds an opaque `cursor`. The last page has none.',
    schema: { type: 'string' },
    example: '<https://api.animal-store.example/v1/pets?limit=20&cursor=MjA>; rel="next"',
  },
  Location: {
    name: 'Location',
    required: true,
    description: 'The path of the created animal, `/v1/pets/{id}`',
    schema: { type: 'string', format: 'uri-reference' },
    example: '/v1/pets/42',
  },
  IdempotentReplayed: {
    name: 'Idempotent-Replayed',
    description:
      '`true` when this response replays the first response to the same `Idempotency-Key` and body; nothing was created',
    schema: { type: 'string', enum: ['true'] },
  },
  Deprecation: {
    name: 'Deprecation',
    required: true,
    description: `RFC 9745: the operation is deprecated since 2025-01-01T00:00:00Z (\`${GET_PET_DEPRECATION_HEADERS.Deprecation}\`)`,
    schema: { type: 'string' },
    example: GET_PET_DEPRECATION_HEADERS.Deprecation,
  },
  Sunset: {
    name: 'Sunset',
    required: true,
    description: `RFC 8594: the operation is removed on \`${GET_PET_DEPRECATION_HEADERS.Sunset}\``,
    schema: { type: 'string' },
    example: GET_PET_DEPRECATION_HEADERS.Sunset,
  },
  SuccessorVersionLink: {
    name: 'Link',
    required: true,
    description: 'RFC 8288: the operation to use instead (`rel="successor-version"`)',
    schema: { type: 'string' },
    example: GET_PET_DEPRECATION_HEADERS.Link,
  },
} as const satisfies Record<string, HeaderObject & { name: string }>;

type HeaderComponent = keyof typeof HEADERS;

/** Which responses carry which headers; a rule without `operationId` or `status` matches all. */
const RESPONSE_HEADERS: ReadonlyArray<{
  operationId?: OperationId;
  status?: string;
  headers: readonly HeaderComponent[];
}> = [
  { headers: ['RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset', 'RequestId'] },
  { status: '401', headers: ['WwwAuthenticate'] },
  { status: '429', headers: ['RetryAfter'] },
  { operationId: 'listPets', status: '200', headers: ['NextPageLink'] },
  { operationId: 'createPet', status: '201', headers: ['Location', 'IdempotentReplayed'] },
  { operationId: 'getPet', headers: ['Deprecation', 'Sunset', 'SuccessorVersionLink'] },
];

function responseHeaders(operationId: OperationId, status: string): HeadersObject {
  const headers: HeadersObject = {};
  for (const rule of RESPONSE_HEADERS) {
    if (rule.operationId !== undefined && rule.operationId !== operationId) continue;
    if (rule.status !== undefined && rule.status !== status) continue;
    for (const component of rule.headers)
      headers[HEADERS[component].name] = ref('headers', component);
  }
  return headers;
}

function componentHeaders(): Record<string, HeaderObject> {
  return Object.fromEntries(
    Object.entries(HEADERS).map(([component, header]) => {
      const { name, ...object } = header;
      return [component, object as HeaderObject];
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Operations

const SUCCESS_DESCRIPTIONS: Readonly<Record<OperationId, Readonly<Record<string, string>>>> = {
  listPets: { 200: 'A page of animals, in ascending `id` order' },
  createPet: { 201: 'The created animal (or, with `Idempotent-Replayed`, the one created first)' },
  getPet: { 200: 'The animal' },
};

const ERROR_DESCRIPTIONS: Readonly<Record<string, string>> = {
  400: 'The request is invalid: `details` names each invalid field',
  401: 'The API key is missing, unknown or revoked, or the scheme is not Bearer',
  404: 'No animal has this id, or `petId` is not a positive integer within the id range',
  409: 'The `Idempotency-Key` was already used with a different body',
  413: 'The body is larger than 16 KiB',
  415: 'A non-empty body was sent without `Content-Type: application/json`',
  429: "Over the plan's rate limit (`rate_limited`), or the key or IP is temporarily banned (`temporarily_banned`)",
  500: 'An unexpected error; the message reveals no internals',
  503: 'The database cannot be reached',
};

function routeMetadata(route: AppRoute): RouteMetadata & { operationId: OperationId } {
  const metadata = route.metadata as Partial<RouteMetadata> | undefined;
  const operationId = metadata?.operationId;
  if (
    (operationId !== 'listPets' && operationId !== 'createPet' && operationId !== 'getPet') ||
    metadata?.stability === undefined
  ) {
    throw new Error(
      `${route.method} ${route.path}: metadata needs a known operationId and a stability`,
    );
  }
  return { operationId, stability: metadata.stability };
}

/** `idempotency-key` (how ts-rest keys headers) as it is written on the wire. */
const headerCase = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash, c) => dash + c.toUpperCase());

function documentParameter(parameter: ParameterObject): ParameterObject {
  const { description, ...schema } = (parameter.schema ?? {}) as SchemaObject;
  return {
    ...parameter,
    name: parameter.in === 'header' ? headerCase(parameter.name) : parameter.name,
    ...((parameter.description ?? description) !== undefined && {
      description: parameter.description ?? description,
    }),
    schema: documentField(parameter.name, schema),
  };
}

function documentOperation(operation: OperationObject, route: AppRoute): OperationObject {
  const { operationId, stability } = routeMetadata(route);
  const responses = Object.fromEntries(
    Object.entries(operation.responses as Record<string, ResponseObject>).map(
      ([status, response]) => {
        const generated = response.content?.['application/json']?.schema;
        const schema = bodySchema(route.responses[Number(status)], status, generated);
        const documented: ResponseObject = {
          description:
            SUCCESS_DESCRIPTIONS[operationId][status] ??
            ERROR_DESCRIPTIONS[status] ??
            response.description,
          headers: responseHeaders(operationId, status),
          ...(schema && { content: { 'application/json': { schema } } }),
        };
        return [status, documented];
      },
    ),
  );
  const generatedBody = operation.requestBody as RequestBodyObject | undefined;
  const requestBody =
    generatedBody && 'body' in route
      ? {
          description: 'The animal to add',
          required: true,
          content: {
            'application/json': {
              schema: bodySchema(
                route.body,
                'request',
                generatedBody.content['application/json']?.schema,
              ),
            },
          },
        }
      : undefined;
  return {
    ...operation,
    operationId,
    parameters: [
      ...(operation.parameters as ParameterObject[]).map(documentParameter),
      ref('parameters', 'RequestId'),
    ],
    ...(requestBody && { requestBody }),
    responses,
    security: [{ [SECURITY_SCHEME]: [] }],
    ...(route.deprecated === true && { deprecated: true }),
    'x-stability': stability,
  };
}

// ---------------------------------------------------------------------------------------------
// Document

/**
 * The OpenAPI 3 document of the Animal Store API v1, generated from the ts-rest contract. Every
 * call builds a new document, safe to change; it is plain JSON (no `undefined` values).
 */
export function buildOpenApiDocument(options: BuildOpenApiDocumentOptions = {}): OpenAPIObject {
  const serverUrl = options.serverUrl?.replace(/\/+$/, '') || '/';
  const document = generateOpenApi(
    contract,
    {
      info: {
        title: 'Animal Store API',
        version: API_VERSION,
        description:
          'The catalogue of animals offered in a store. Every operation needs an API key sent as a bearer token; every response carries the `X-RateLimit-*` headers and an `X-Request-Id`.',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      },
      servers: [{ url: serverUrl, description: 'Animal Store API (paths carry the `/v1` prefix)' }],
      tags: [{ name: 'pets', description: 'Animals offered in the store' }],
      components: {
        schemas: componentSchemas(),
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            description: 'The API key as a bearer token: `Authorization: Bearer <API_KEY>`',
          },
        },
        parameters: {
          RequestId: {
            name: 'X-Request-Id',
            in: 'header',
            description:
              'Your id for the request (1 to 128 letters, digits and `-_.:`), echoed in the response and logged by the server',
            schema: HEADERS.RequestId.schema,
          },
        },
        headers: componentHeaders(),
      },
    },
    { setOperationId: true, operationMapper: documentOperation },
  );
  // Drops the `undefined` values ts-rest leaves (e.g. `deprecated` of current operations) and
  // shares no object with this module.
  return JSON.parse(JSON.stringify(document)) as OpenAPIObject;
}
