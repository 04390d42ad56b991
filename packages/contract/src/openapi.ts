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
import { ERROR_STATUS, ErrorBodySchema, type ErrorCode, ErrorDetailSchema } from './errors.js';
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

const ref = (
  kind: 'schemas' | 'headers' | 'parameters' | 'responses',
  name: string,
): ReferenceObject => ({
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
 * The code points of Unicode's White_Space property, which `PetNameSchema` reads as whitespace,
 * as the body of a regular expression character class. Spelled out rather than `\p{White_Space}`
 * or `\s`: OpenAPI 3.0 patterns are ECMA-262 expressions without the `u` flag, where `\p{…}` is
 * not a property escape, and `\s` also counts U+FEFF, which the server accepts as a name.
 */
const WHITE_SPACE_CLASS =
  '\\t-\\r\\u0020\\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';

/**
 * Fields whose zod schema the converter cannot read: `PetNameSchema` is a refinement (code
 * points, whitespace, well-formedness), `wholeNumberInRange` is a number-or-text transform that
 * renders as `oneOf`, and zod has no int64 format. From what the converter made of them only the
 * description and the default are kept. The JSON Schema length of a string counts code points,
 * and the pattern finds one character that is not White_Space; that the text is well-formed
 * (no lone surrogates) no pattern can say portably, so the description says it.
 */
const FIELD_SCHEMAS: Readonly<Record<string, SchemaObject>> = {
  id: ID_SCHEMA,
  categoryId: ID_SCHEMA,
  petId: ID_SCHEMA,
  name: {
    type: 'string',
    minLength: 1,
    maxLength: PET_NAME_MAX_LENGTH,
    pattern: `[^${WHITE_SPACE_CLASS}]`,
  },
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

/**
 * A request body's field that may be omitted carries no `default` keyword, its description says
 * the value instead: openapi-typescript (`defaultNonNullable`, on by default) makes every property
 * with a default required, so a client could not omit it (openapi-typescript issue 1741).
 */
function withoutDefault(schema: SchemaObject): SchemaObject {
  const { default: _omitted, ...rest } = schema;
  return rest;
}

function documentObject(
  generated: SchemaObject,
  extra: Pick<SchemaObject, 'description' | 'example'>,
  direction: 'request' | 'response',
): SchemaObject {
  const properties = Object.fromEntries(
    Object.entries(generated.properties ?? {}).map(([name, schema]) => {
      const field = documentField(name, schema as SchemaObject);
      return [name, direction === 'request' ? withoutDefault(field) : field];
    }),
  );
  return { ...generated, ...extra, properties };
}

const PET_EXAMPLE = { id: 42, name: 'Rex', categoryId: 1, status: 'available' } as const;

function componentSchemas(): Record<string, SchemaObject> {
  return {
    Pet: documentObject(
      generateSchema(PetSchema, true),
      { description: 'An animal as the service returns it', example: PET_EXAMPLE },
      'response',
    ),
    NewPet: documentObject(
      generateSchema(NewPetSchema, false),
      {
        description: 'An animal to add; fields other than these three are refused',
        example: { name: PET_EXAMPLE.name, categoryId: PET_EXAMPLE.categoryId },
      },
      'request',
    ),
    Error: errorSchema(),
    ErrorDetail: {
      ...generateSchema(ErrorDetailSchema, true),
      description: 'One invalid field of a `validation_failed` request',
    },
  };
}

/** The one Error body: every code of the API, whatever the status; `details` only on 400. */
function errorSchema(): SchemaObject {
  const generated = generateSchema(ErrorBodySchema, true);
  const properties = generated.properties as Record<string, SchemaObject>;
  return {
    ...generated,
    properties: {
      ...properties,
      code: {
        ...properties.code,
        description:
          'Machine-readable error code; each travels with one HTTP status (see the responses). Clients should treat a code they do not know as an error of its status.',
      },
      details: {
        type: 'array',
        items: ref('schemas', 'ErrorDetail'),
        description: 'One entry per invalid field; sent with `validation_failed` (400) only',
      },
    },
    description: 'The body of every error response',
    example: { code: 'not_found', message: 'No pet has id 42.', status: 404 },
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
function errorCodesOf(schema: unknown): readonly ErrorCode[] | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  const shape: Record<string, unknown> = schema.shape;
  if (shape.message !== ErrorBodySchema.shape.message) return undefined;
  return shape.code instanceof z.ZodEnum ? shape.code.options : undefined;
}

function bodySchema(
  zodSchema: unknown,
  generated: SchemaObject | ReferenceObject | undefined,
): SchemaObject | ReferenceObject | undefined {
  const component = SCHEMA_COMPONENTS.get(zodSchema);
  if (component) return ref('schemas', component);
  if (zodSchema instanceof z.ZodArray) {
    const items = SCHEMA_COMPONENTS.get(zodSchema.element);
    if (items) return { type: 'array', items: ref('schemas', items) };
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
    example:
      '<https://api.animal-store.example/v1/pets?limit=20&status=available&cursor=20.Qk9XcbMRsdl7t0FnVUf8aA>; rel="next"',
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
  // The error responses are shared by every operation (components.responses), so they carry
  // only what every operation's do; getPet's errors carry these too, as its description says.
  {
    operationId: 'getPet',
    status: '200',
    headers: ['Deprecation', 'Sunset', 'SuccessorVersionLink'],
  },
];

/** A header without `required: true`: one that some responses of its kind do not carry. */
const isOptional = (component: HeaderComponent) =>
  !('required' in HEADERS[component] && HEADERS[component].required);

/**
 * The headers of a response. Headers always sent are references to `components.headers`;
 * headers not always sent are written out in place, because openapi-typescript reads a
 * referenced header as required whatever the header itself says.
 */
function responseHeaders(operationId: OperationId | undefined, status: string): HeadersObject {
  const headers: HeadersObject = {};
  for (const rule of RESPONSE_HEADERS) {
    if (rule.operationId !== undefined && rule.operationId !== operationId) continue;
    if (rule.status !== undefined && rule.status !== status) continue;
    for (const component of rule.headers) {
      const { name, ...header } = HEADERS[component];
      headers[name] = isOptional(component) ? (header as HeaderObject) : ref('headers', component);
    }
  }
  return headers;
}

function componentHeaders(): Record<string, HeaderObject> {
  return Object.fromEntries(
    (Object.keys(HEADERS) as HeaderComponent[])
      .filter((component) => !isOptional(component))
      .map((component) => {
        const { name, ...object } = HEADERS[component];
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

// ---------------------------------------------------------------------------------------------
// Error responses

type ErrorExample = { message: string; details?: Array<{ path: string; message: string }> };

/**
 * The error responses, shared by the operations through `components.responses`. Each is one
 * status with the codes it can carry: its body is the one `Error` schema, and its examples, one
 * per code, say which codes those are. A status whose codes differ between operations (400) has
 * one response per set of codes. Every set of codes the contract declares must be named here.
 */
const ERROR_RESPONSES: ReadonlyArray<{
  name: string;
  description: string;
  examples: Partial<Record<ErrorCode, ErrorExample>>;
}> = [
  {
    name: 'MalformedRequest',
    description:
      'The request is not one the server can read (`malformed_request`): a missing, repeated or invalid `Host`, a `#` in the target, or bytes that are not HTTP',
    examples: {
      malformed_request: { message: 'The request needs exactly one valid Host header.' },
    },
  },
  {
    name: 'InvalidQuery',
    description:
      'A query parameter is invalid (`validation_failed`: `details` names each one), or the request is not one the server can read (`malformed_request`)',
    examples: {
      validation_failed: {
        message: 'The request is invalid: limit.',
        details: [{ path: 'limit', message: 'must be a whole number from 1 to 100' }],
      },
      malformed_request: { message: 'The request needs exactly one valid Host header.' },
    },
  },
  {
    name: 'InvalidPetBody',
    description:
      'The body or the `Idempotency-Key` is invalid (`validation_failed`: `details` names each invalid field), the body is not JSON in UTF-8 (`malformed_json`), or the request is not one the server can read (`malformed_request`)',
    examples: {
      validation_failed: {
        message: 'The request is invalid: name.',
        details: [{ path: 'name', message: 'is required' }],
      },
      malformed_json: { message: 'The request body could not be read as JSON.' },
      malformed_request: { message: 'The request needs exactly one valid Host header.' },
    },
  },
  {
    name: 'Unauthorized',
    description: 'The API key is missing, unknown or revoked, or the scheme is not Bearer',
    examples: {
      unauthorized: { message: 'An API key is required: send Authorization: Bearer <API key>.' },
    },
  },
  {
    name: 'NotFound',
    description: 'No animal has this id, or `petId` is not a positive integer within the id range',
    examples: { not_found: { message: 'No pet has id 42.' } },
  },
  {
    name: 'IdempotencyKeyReused',
    description: 'The `Idempotency-Key` was already used with a different body',
    examples: {
      idempotency_key_reused: {
        message: 'This Idempotency-Key was already used with a different body.',
      },
    },
  },
  {
    name: 'PayloadTooLarge',
    description: 'The body is larger than 16 KiB',
    examples: { payload_too_large: { message: 'The request body is larger than 16 KiB.' } },
  },
  {
    name: 'UnsupportedMediaType',
    description:
      'A non-empty body was sent without `Content-Type: application/json`, in a charset other than UTF-8, or with an unsupported `Content-Encoding`',
    examples: {
      unsupported_media_type: {
        message: 'Send the request body as JSON with Content-Type: application/json.',
      },
    },
  },
  {
    name: 'TooManyRequests',
    description:
      "Over the plan's rate limit (`rate_limited`), or the key or IP is temporarily banned (`temporarily_banned`)",
    examples: {
      rate_limited: {
        message: 'Rate limit exceeded. Wait as Retry-After says, then back off exponentially.',
      },
      temporarily_banned: {
        message: 'Too many requests over the limit: this client is banned for a while.',
      },
    },
  },
  {
    name: 'HeadersTooLarge',
    description: 'The request headers are larger than 16 KiB',
    examples: { headers_too_large: { message: 'The request headers are larger than 16 KiB.' } },
  },
  {
    name: 'InternalError',
    description: 'An unexpected error; the message reveals no internals',
    examples: {
      internal_error: {
        message: 'Something went wrong on our side. The request ID identifies it in our logs.',
      },
    },
  },
  {
    name: 'ServiceUnavailable',
    description: 'The database cannot be reached',
    examples: {
      service_unavailable: {
        message: 'The service cannot reach its database. Try again shortly.',
      },
    },
  },
];

/** The response for any other status (say 405 `method_not_allowed`): an Error body, any code. */
const DEFAULT_ERROR_RESPONSE = 'UnexpectedError';

const codeSetKey = (codes: readonly ErrorCode[]) => [...codes].sort().join(' ');

function errorResponseOf(codes: readonly ErrorCode[]) {
  const found = ERROR_RESPONSES.find(
    (response) => codeSetKey(Object.keys(response.examples) as ErrorCode[]) === codeSetKey(codes),
  );
  if (!found) throw new Error(`no shared error response carries exactly ${codes.join(', ')}`);
  return found;
}

function errorContent(examples: Partial<Record<ErrorCode, ErrorExample>>) {
  return {
    'application/json': {
      schema: ref('schemas', 'Error'),
      examples: Object.fromEntries(
        (Object.entries(examples) as Array<[ErrorCode, ErrorExample]>).map(([code, example]) => [
          code,
          {
            summary: code,
            value: {
              code,
              message: example.message,
              status: ERROR_STATUS[code],
              ...(example.details && { details: example.details }),
            },
          },
        ]),
      ),
    },
  };
}

/** The shared error responses the contract's routes use, and the default one. */
function componentResponses(): Record<string, ResponseObject> {
  const used = new Set<string>();
  for (const route of Object.values(contract.pets) as AppRoute[]) {
    for (const [status, schema] of Object.entries(route.responses)) {
      const codes = errorCodesOf(schema);
      if (codes) used.add(errorResponseOf(codes).name);
      else if (Number(status) >= 400) throw new Error(`${route.path} ${status}: not an Error body`);
    }
  }
  const responses: Record<string, ResponseObject> = {};
  for (const { name, description, examples } of ERROR_RESPONSES) {
    if (!used.has(name)) continue;
    const status = String(ERROR_STATUS[Object.keys(examples)[0] as ErrorCode]);
    responses[name] = {
      description,
      headers: responseHeaders(undefined, status),
      content: errorContent(examples),
    };
  }
  responses[DEFAULT_ERROR_RESPONSE] = {
    description:
      'Any other error, e.g. 405 `method_not_allowed` (with `Allow`) for a method the path does not serve',
    headers: responseHeaders(undefined, 'default'),
    content: { 'application/json': { schema: ref('schemas', 'Error') } },
  };
  return responses;
}

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
      ([status, response]): [string, ResponseObject | ReferenceObject] => {
        const zodSchema = route.responses[Number(status)];
        const codes = errorCodesOf(zodSchema);
        if (codes) return [status, ref('responses', errorResponseOf(codes).name)];
        const generated = response.content?.['application/json']?.schema;
        const schema = bodySchema(zodSchema, generated);
        const documented: ResponseObject = {
          description: SUCCESS_DESCRIPTIONS[operationId][status] ?? response.description,
          headers: responseHeaders(operationId, status),
          ...(schema && { content: { 'application/json': { schema } } }),
        };
        return [status, documented];
      },
    ),
  );
  responses.default = ref('responses', DEFAULT_ERROR_RESPONSE);
  const generatedBody = operation.requestBody as RequestBodyObject | undefined;
  const requestBody =
    generatedBody && 'body' in route
      ? {
          description: 'The animal to add',
          required: true,
          content: {
            'application/json': {
              schema: bodySchema(route.body, generatedBody.content['application/json']?.schema),
            },
          },
        }
      : undefined;
  return {
    ...operation,
    ...(operationId === 'getPet' && {
      description: `${operation.description} Its responses, errors included, carry the \`Deprecation\`, \`Sunset\` and \`Link: rel="successor-version"\` headers.`,
    }),
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
        responses: componentResponses(),
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
