import type { AppRoute, AppRouter } from '@ts-rest/core';
import { createExpressEndpoints } from '@ts-rest/express';
import type { Express, RequestHandler } from 'express';

/** ts-rest's handlers of every operation of `TContract`, as `initServer().router` makes them. */
export type ContractHandlers<TContract extends AppRouter> = Parameters<
  typeof createExpressEndpoints<TContract>
>[1];

type EndpointOptions = Parameters<typeof createExpressEndpoints<AppRouter>>[3];

/**
 * ts-rest's endpoint of each route of `contract` (its validation, its handler, the response
 * check), as the request handlers ts-rest registers for it, to be run in order. ts-rest registers each endpoint as a route of an Express app;
 * here it registers them on a recorder instead, because the pipeline has found the endpoint a
 * request is for already (http/routes.ts): Express need not match the path again. The pipeline
 * sets `req.params` from what it found before it calls the handler, as an Express route would
 * (but not percent-decoded: paths have no aliases).
 */
export function recordedEndpoints<TContract extends AppRouter>(
  contract: TContract,
  handlers: ContractHandlers<TContract>,
  options: EndpointOptions,
): (route: AppRoute) => RequestHandler[] {
  const recorded = new Map<string, RequestHandler[]>();
  const record =
    (method: string) =>
    (path: string, ...stages: RequestHandler[]) => {
      recorded.set(`${method} ${path}`, stages);
    };
  const recorder = {
    get: record('GET'),
    post: record('POST'),
    put: record('PUT'),
    patch: record('PATCH'),
    delete: record('DELETE'),
    // ts-rest's error handler for invalid requests: the pipeline's error mapper answers them.
    use: () => {},
  };
  createExpressEndpoints(
    contract as AppRouter,
    handlers as ContractHandlers<AppRouter>,
    recorder as unknown as Express,
    options,
  );
  return (route) => {
    const stages = recorded.get(`${route.method} ${route.path}`);
    if (!stages)
      throw new Error(`ts-rest registered no endpoint for ${route.method} ${route.path}`);
    return stages;
  };
}
