import { GET_PET_DEPRECATION_HEADERS } from '@animal-store/contract';
import type { RequestHandler } from 'express';

/** Marks a response of the deprecated getPet, errors included. */
export const deprecationHeaders: RequestHandler = (_req, res, next) => {
  res.set(GET_PET_DEPRECATION_HEADERS);
  next();
};
