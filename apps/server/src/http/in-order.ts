import type { NextFunction, RequestHandler } from 'express';

/**
 * `handlers` as one Express middleware, run one after another as Express runs the middleware it
 * is given: each calls `next()` to go on, and the first to pass an error (or throw one) ends the
 * run and hands the error to what follows. One layer instead of one per handler, because
 * Express's router matches the path and allocates for every layer a request passes through.
 */
export function inOrder(...handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let position = 0;
    const proceed: NextFunction = (error?: unknown) => {
      const handler = handlers[position++];
      // As in Express's middleware, a falsy value and 'route' mean go on: the route to skip to
      // is the next handler. Passed out, 'route' would skip the checks still to come.
      if ((error && error !== 'route') || handler === undefined) return next(error);
      try {
        handler(req, res, proceed);
      } catch (thrown) {
        next(thrown);
      }
    };
    proceed();
  };
}
