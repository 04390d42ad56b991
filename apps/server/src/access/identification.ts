import type { RequestHandler } from 'express';
import { contextOf } from '../http/request-context.js';
import type { CallerResolver } from './caller.js';

/**
 * The caller stage: who sent the request, as its `Authorization` header names them, into its
 * context. Probes and preflights are nobody's, and documents are counted per IP whatever they
 * carry, so none of them looks a key up. A request whose key was not seen lately goes on once
 * the key is looked up, in a later turn.
 */
export function identifyCaller(resolveCaller: CallerResolver): RequestHandler {
  return (req, res, next) => {
    const context = contextOf(res);
    const { kind } = context.target;
    if (kind === 'probe' || kind === 'preflight' || kind === 'document') return next();
    const caller = resolveCaller(req.headers.authorization, context.trace);
    if (caller instanceof Promise) {
      void caller.then((known) => {
        context.caller = known;
        next();
      });
    } else {
      context.caller = caller;
      next();
    }
  };
}
