import {
  declaresBody,
  deprecationHeaders,
  operationsOf,
  type RouteMetadata,
} from '@animal-store/contract';
import type { DatabaseClient } from '@animal-store/db';
import type { AppRoute, AppRouter } from '@ts-rest/core';
import type { ErrorRequestHandler } from 'express';
import { type ContractHandlers, recordedEndpoints } from '../departures/ts-rest-recorder.js';
import type { ServerMetrics } from '../operations/metrics.js';
import type { Tracing } from '../tracing/tracing.js';
import { inOrder } from './in-order.js';
import { type OperationEndpoint, templateOf } from './routes.js';

/** What the server makes once at start, for the APIs it serves to build their handlers on. */
export interface ApiServices {
  db: DatabaseClient;
  tracing: Tracing;
  metrics: ServerMetrics;
  /** Absolute origin for URLs in responses (`PUBLIC_URL`), else the request's own. */
  publicUrl: string | undefined;
}

/** An API the server serves: its contract, and a ts-rest handler for every operation in it. */
export interface ServedApi<TContract extends AppRouter = AppRouter> {
  contract: TContract;
  handlers: ContractHandlers<TContract>;
  /**
   * Runs on a request its operation's contract refused, before the error mapper: where the API
   * adds to the refusal what only the server can check (a cursor's signature, say).
   */
  onRefusal?: ErrorRequestHandler;
}

/** An API, made from the server's services when the app is made. */
export type ApiDefinition = (services: ApiServices) => ServedApi;

/**
 * Declares an API: ts-rest checks `define`'s handlers against its contract here, once; the
 * server, which serves any contract, takes it as an `ApiDefinition`.
 */
export function defineApi<TContract extends AppRouter>(
  define: (services: ApiServices) => ServedApi<TContract>,
): ApiDefinition {
  return define as unknown as ApiDefinition;
}

/** The deprecation headers a route's metadata declares, when it carries `RouteMetadata`. */
function deprecationOf(route: AppRoute) {
  const { deprecation } = (route.metadata ?? {}) as Partial<RouteMetadata>;
  return deprecation && deprecationHeaders(deprecation);
}

/**
 * The endpoint of every operation of `api`'s contract, each answered by ts-rest's endpoint of its
 * handler: the contract's validation, the handler, and (when `responseValidation`) the check of
 * its response against the contract.
 */
export function operationEndpoints(
  api: ServedApi,
  options: { responseValidation: boolean },
): OperationEndpoint[] {
  const endpointOf = recordedEndpoints(api.contract, api.handlers, options);
  return operationsOf(api.contract).map(({ name, route }) => ({
    kind: 'operation',
    method: route.method,
    path: route.path,
    template: templateOf(route.path),
    label: name,
    handle: inOrder(...endpointOf(route)),
    route,
    takesBody: declaresBody(route),
    deprecationHeaders: deprecationOf(route),
  }));
}
