import { contract, type DeprecationHeaders, deprecationHeadersOf } from '@animal-store/contract';
import type { RequestHandler } from 'express';
import { contextOf } from './request-context.js';
import type { OperationName } from './routes.js';

/** The deprecation headers of each deprecated operation, as its contract route declares them. */
const DEPRECATION_HEADERS = new Map<OperationName, DeprecationHeaders>(
  (Object.keys(contract.pets) as OperationName[]).flatMap((name) => {
    const headers = deprecationHeadersOf(contract.pets[name]);
    return headers ? [[name, headers] as const] : [];
  }),
);

/** Marks every response of a deprecated operation, errors included. */
export const deprecationHeaders: RequestHandler = (_req, res, next) => {
  const { target } = contextOf(res);
  const headers = target.kind === 'operation' ? DEPRECATION_HEADERS.get(target.name) : undefined;
  if (headers) res.set(headers);
  next();
};
