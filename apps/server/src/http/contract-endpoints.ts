import { contract } from '@animal-store/contract';
import { createExpressEndpoints } from '@ts-rest/express';
import type { Express, RequestHandler } from 'express';
import { inOrder } from './in-order.js';
import type { OperationName } from './routes.js';

type PetsRouter = Parameters<typeof createExpressEndpoints<typeof contract.pets>>[1];
type EndpointOptions = Parameters<typeof createExpressEndpoints<typeof contract.pets>>[3];

/**
 * The ts-rest endpoints of `router` (validation, the handler, the response), one request handler
 * per operation. ts-rest registers each endpoint as a route of an Express app; here it
 * registers them on a recorder instead, because the request context already knows which
 * operation a request is for: Express need not match the path again. The pipeline sets
 * `req.params` from the context before it calls the handler, as an Express route would (but not
 * percent-decoded: paths have no aliases, see routes.ts).
 */
export function operationHandlers(
  router: PetsRouter,
  options: EndpointOptions,
): Record<OperationName, RequestHandler> {
  const recorded = new Map<string, RequestHandler[]>();
  const record =
    (method: string) =>
    (path: string, ...handlers: RequestHandler[]) => {
      recorded.set(`${method} ${path}`, handlers);
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
  createExpressEndpoints(contract.pets, router, recorder as unknown as Express, options);

  const handlerOf = (name: OperationName): RequestHandler => {
    const { method, path } = contract.pets[name];
    const handlers = recorded.get(`${method} ${path}`);
    if (!handlers) throw new Error(`ts-rest registered no endpoint for ${name}`);
    return inOrder(...handlers);
  };
  const names = Object.keys(contract.pets) as OperationName[];
  return Object.fromEntries(names.map((name) => [name, handlerOf(name)])) as Record<
    OperationName,
    RequestHandler
  >;
}
