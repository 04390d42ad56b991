import { generateSchema } from '@anatine/zod-openapi';
import { type AppRouter, isAppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import type { OpenAPIObject, OperationObject, PathItemObject, TagObject } from 'openapi3-ts';
import { ErrorBodySchema } from './errors.js';
import { contract } from './index.js';
import {
  INFO,
  REQUEST_ID_PARAMETER,
  SECURITY_SCHEME,
  SECURITY_SCHEME_NAME,
  SERVER_DESCRIPTION,
  TAG_DESCRIPTIONS,
} from './openapi/api-wide.js';
import { SharedComponents } from './openapi/components.js';
import { documentOperation, type OperationContext } from './openapi/operations.js';
import { documentBodySchema } from './openapi/schemas.js';

export type { OpenAPIObject } from 'openapi3-ts';

export interface BuildOpenApiDocumentOptions {
  /**
   * Origin the API is served from, e.g. `https://api.animal-store.example`, without the
   * `/v1` prefix: the document's paths carry it. Defaults to `/` (same origin as the document).
   */
  serverUrl?: string;
}

/**
 * The OpenAPI 3 document of the Animal Store API v1, generated from the ts-rest contract. Every
 * call builds a new document, safe to change; it is plain JSON (no `undefined` values).
 */
export function buildOpenApiDocument(options: BuildOpenApiDocumentOptions = {}): OpenAPIObject {
  return buildOpenApiDocumentFor(contract, options);
}

/** The tags ts-rest gives the routes of `router`: the keys of the routers each is nested in. */
function tagsOf(router: AppRouter): TagObject[] {
  const names = new Set<string>();
  const collect = (node: AppRouter, parents: readonly string[]) => {
    for (const [key, child] of Object.entries(node)) {
      if (isAppRoute(child)) for (const name of parents) names.add(name);
      else collect(child, [...parents, key]);
    }
  };
  collect(router, []);
  return [...names].map((name) => ({
    name,
    ...(TAG_DESCRIPTIONS[name] !== undefined && { description: TAG_DESCRIPTIONS[name] }),
  }));
}

const operationsOf = (document: OpenAPIObject) =>
  Object.values(document.paths as Record<string, PathItemObject>).flatMap((path) =>
    Object.values(path).filter(
      (value): value is OperationObject => typeof value === 'object' && 'responses' in value,
    ),
  );

function refuseRepeatedOperationIds(document: OpenAPIObject) {
  const seen = new Set<string>();
  for (const { operationId } of operationsOf(document)) {
    if (operationId === undefined || seen.has(operationId)) {
      throw new Error(`operationId ${operationId} names more than one operation`);
    }
    seen.add(operationId);
  }
}

/**
 * The OpenAPI document of `router`, a contract written as this package's is: each route
 * carries `RouteMetadata`, each error response is made by `errorResponse`, and fields say what
 * zod cannot with `documented`. Everything an operation's entry says comes from its route, so a
 * route added to the router is in the document.
 */
export function buildOpenApiDocumentFor(
  router: AppRouter,
  options: BuildOpenApiDocumentOptions = {},
): OpenAPIObject {
  const components = new SharedComponents();
  const context: OperationContext = {
    components,
    errorSchema: documentBodySchema(generateSchema(ErrorBodySchema, true), components),
  };
  const generated = generateOpenApi(
    router,
    {
      info: INFO,
      servers: [
        { url: options.serverUrl?.replace(/\/+$/, '') || '/', description: SERVER_DESCRIPTION },
      ],
      tags: tagsOf(router),
    },
    { operationMapper: (operation, route) => documentOperation(operation, route, context) },
  );
  refuseRepeatedOperationIds(generated);
  // The schemas ts-rest shared (titled ones, still carrying the title their name says).
  for (const schema of Object.values(generated.components?.schemas ?? {})) {
    documentBodySchema(schema, components);
  }
  const document: OpenAPIObject = {
    ...generated,
    components: {
      schemas: components.byKind.schemas,
      responses: components.byKind.responses,
      securitySchemes: { [SECURITY_SCHEME_NAME]: SECURITY_SCHEME },
      parameters: { [REQUEST_ID_PARAMETER.name]: REQUEST_ID_PARAMETER.definition },
      headers: components.byKind.headers,
    },
  };
  // Drops the `undefined` values ts-rest leaves (e.g. `deprecated` of current operations) and
  // shares no object with this module.
  return JSON.parse(JSON.stringify(document)) as OpenAPIObject;
}
