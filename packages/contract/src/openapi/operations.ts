/*
 * The one step after ts-rest's generator: what a ts-rest route cannot declare, read from the
 * route itself (its `RouteMetadata`, its `errorResponse`s) and from what holds for every
 * operation (`api-wide.ts`). Nothing here names an operation, a field or a status of this API.
 */
import { type AppRoute, isZodType } from '@ts-rest/core';
import type {
  HeaderObject,
  HeadersObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  ResponsesObject,
  SchemaObject,
} from 'openapi3-ts';
import { type Deprecation, deprecationHeadersDocumentation } from '../deprecation.js';
import type { HeadersDocumentation } from '../documentation.js';
import {
  ERROR_STATUS,
  type ErrorCode,
  type ErrorExample,
  type ErrorResponseDocumentation,
  errorResponseDocumentationOf,
} from '../errors.js';
import type { RouteMetadata } from '../route-metadata.js';
import {
  DEPRECATION_HEADERS_NOTE,
  EVERY_RESPONSE_HEADERS,
  REQUEST_ID_PARAMETER,
  SECURITY_SCHEME_NAME,
  UNEXPECTED_ERROR,
} from './api-wide.js';
import { ref, type SharedComponents } from './components.js';
import { asDocumented, documentBodySchema } from './schemas.js';

/** What every operation's responses refer to: the shared components and the Error schema. */
export interface OperationContext {
  components: SharedComponents;
  errorSchema: SchemaObject | ReferenceObject;
}

const where = (route: AppRoute) => `${route.method} ${route.path}`;

/** The route's metadata, refused unless it is `RouteMetadata` and agrees with `deprecated`. */
function routeMetadataOf(route: AppRoute): RouteMetadata {
  const metadata = route.metadata as Partial<RouteMetadata> | undefined;
  if (
    typeof metadata?.operationId !== 'string' ||
    typeof metadata.stability !== 'string' ||
    typeof metadata.responses !== 'object'
  ) {
    throw new Error(`${where(route)}: metadata needs an operationId, a stability and responses`);
  }
  const deprecated = route.deprecated === true;
  if (
    (metadata.stability === 'deprecated') !== deprecated ||
    !metadata.deprecation !== !deprecated
  ) {
    throw new Error(
      `${where(route)}: a deprecated route has stability 'deprecated' and a deprecation; no other has`,
    );
  }
  return metadata as RouteMetadata;
}

/**
 * The headers of a response. Headers always sent refer to `components.headers`; the others
 * are written out in place, so that they stay optional.
 */
function headersObject(headers: HeadersDocumentation, components: SharedComponents) {
  const entries = Object.entries(headers).map(
    ([name, { component, ...header }]): [string, HeaderObject | ReferenceObject] => [
      name,
      component === undefined
        ? (header as HeaderObject)
        : components.share('headers', component, header as HeaderObject),
    ],
  );
  return Object.fromEntries(entries) as HeadersObject;
}

/**
 * The headers of a deprecated operation's responses. Operations deprecated on the same dates
 * share their components; one deprecated on other dates gets components named after it
 * (`GetWidgetDeprecation`), so that each name keeps one definition.
 */
function deprecationHeaders(
  metadata: RouteMetadata & { deprecation: Deprecation },
  components: SharedComponents,
): HeadersDocumentation {
  const headers = deprecationHeadersDocumentation(metadata.deprecation);
  const prefix = metadata.operationId.replace(/^./, (first) => first.toUpperCase());
  const entries = Object.entries(headers).map(([name, { component, ...header }]) => {
    const shared =
      component === undefined || components.fits('headers', component, header as HeaderObject);
    return [
      name,
      shared ? { component, ...header } : { component: `${prefix}${component}`, ...header },
    ];
  });
  return Object.fromEntries(entries) as HeadersDocumentation;
}

/** ts-rest keys headers in lower case (`idempotency-key`); the document names them as sent. */
const headerCase = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash, letter) => dash + letter.toUpperCase());

function documentParameter(generated: ParameterObject): ParameterObject {
  // ts-rest leaves a header's description in its schema; a parameter carries its own.
  const { description: schemaDescription, ...schema } = (generated.schema ?? {}) as SchemaObject;
  const description = generated.description ?? schemaDescription;
  return {
    ...generated,
    name: generated.in === 'header' ? headerCase(generated.name) : generated.name,
    ...(description !== undefined && { description }),
    schema: asDocumented(schema, { keepDefault: true }),
  };
}

function documentRequestBody(
  generated: RequestBodyObject,
  route: AppRoute,
  metadata: RouteMetadata,
  { components }: OperationContext,
): RequestBodyObject {
  const body = 'body' in route ? route.body : undefined;
  const content = Object.fromEntries(
    Object.entries(generated.content).map(([type, { schema, ...media }]) => [
      type,
      { ...media, ...(schema && { schema: documentBodySchema(schema, components) }) },
    ]),
  );
  return {
    // In place of ts-rest's "Body".
    ...(metadata.requestBody && { description: metadata.requestBody.description }),
    ...(isZodType(body) && !body.isOptional() && { required: true }),
    content,
  };
}

function errorExamples(examples: ErrorResponseDocumentation['examples']) {
  const entries = Object.entries(examples) as Array<[ErrorCode, ErrorExample]>;
  return Object.fromEntries(
    entries.map(([code, { message, details }]) => [
      code,
      {
        summary: code,
        value: { code, message, status: ERROR_STATUS[code], ...(details && { details }) },
      },
    ]),
  );
}

/** A reference to the shared response an error response's documentation describes. */
function sharedErrorResponse(
  status: string,
  documentation: ErrorResponseDocumentation,
  { components, errorSchema }: OperationContext,
): ReferenceObject {
  const strays = Object.keys(documentation.examples).filter(
    (code) => String(ERROR_STATUS[code as ErrorCode]) !== status,
  );
  if (strays.length > 0) {
    throw new Error(
      `${documentation.name}, a ${status} response, has codes of other statuses: ${strays.join(', ')}`,
    );
  }
  return components.share('responses', documentation.name, {
    description: documentation.description,
    headers: headersObject({ ...EVERY_RESPONSE_HEADERS, ...documentation.headers }, components),
    content: {
      'application/json': { schema: errorSchema, examples: errorExamples(documentation.examples) },
    },
  });
}

function successResponse(
  status: string,
  generated: ResponseObject,
  route: AppRoute,
  metadata: RouteMetadata,
  { components }: OperationContext,
): ResponseObject {
  const documented = metadata.responses[Number(status)];
  if (!documented) {
    throw new Error(`${where(route)}: metadata.responses does not describe its ${status} response`);
  }
  const headers = {
    ...EVERY_RESPONSE_HEADERS,
    ...documented.headers,
    ...(metadata.deprecation && deprecationHeaders(metadata, components)),
  };
  const schema = generated.content?.['application/json']?.schema;
  return {
    description: documented.description,
    headers: headersObject(headers, components),
    ...(schema && {
      content: { 'application/json': { schema: documentBodySchema(schema, components) } },
    }),
  };
}

/** The default response of every operation: an Error body of any code. */
function unexpectedErrorResponse({ components, errorSchema }: OperationContext) {
  return components.share('responses', UNEXPECTED_ERROR.name, {
    description: UNEXPECTED_ERROR.description,
    headers: headersObject(EVERY_RESPONSE_HEADERS, components),
    content: { 'application/json': { schema: errorSchema } },
  });
}

function documentResponses(
  generated: ResponsesObject,
  route: AppRoute,
  metadata: RouteMetadata,
  context: OperationContext,
): ResponsesObject {
  const responses: ResponsesObject = {};
  for (const [status, declared] of Object.entries(route.responses)) {
    const errorDocumentation = errorResponseDocumentationOf(declared);
    if (errorDocumentation) {
      responses[status] = sharedErrorResponse(status, errorDocumentation, context);
    } else if (Number(status) >= 400) {
      throw new Error(`${where(route)} ${status}: an error response is made by errorResponse()`);
    } else {
      responses[status] = successResponse(status, generated[status], route, metadata, context);
    }
  }
  responses.default = unexpectedErrorResponse(context);
  return responses;
}

/**
 * The operation ts-rest generated from `route`, completed with what a ts-rest route cannot
 * declare and this one's metadata and error responses say: its name and stability, what each
 * response means and the headers it carries, and what holds for every operation of the API.
 */
export function documentOperation(
  generated: OperationObject,
  route: AppRoute,
  context: OperationContext,
): OperationObject {
  const metadata = routeMetadataOf(route);
  const requestBody = generated.requestBody as RequestBodyObject | undefined;
  return {
    ...generated,
    ...(metadata.deprecation && {
      description: [generated.description, DEPRECATION_HEADERS_NOTE].filter(Boolean).join(' '),
    }),
    operationId: metadata.operationId,
    parameters: [
      ...((generated.parameters ?? []) as ParameterObject[]).map(documentParameter),
      ref('parameters', REQUEST_ID_PARAMETER.name),
    ],
    ...(requestBody && {
      requestBody: documentRequestBody(requestBody, route, metadata, context),
    }),
    responses: documentResponses(generated.responses, route, metadata, context),
    security: [{ [SECURITY_SCHEME_NAME]: [] }],
    'x-stability': metadata.stability,
  };
}
