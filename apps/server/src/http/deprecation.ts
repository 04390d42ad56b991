import type { RequestHandler } from 'express';
import { contextOf } from './request-context.js';

/** Marks every response of a deprecated operation, errors included, as its route declares. */
export const deprecationHeaders: RequestHandler = (_req, res, next) => {
  const { target } = contextOf(res);
  if (target.kind === 'operation' && target.endpoint.deprecationHeaders) {
    res.set(target.endpoint.deprecationHeaders);
  }
  next();
};
