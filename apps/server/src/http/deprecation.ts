import { contract, GET_PET_DEPRECATION_HEADERS } from '@animal-store/contract';
import type { RequestHandler } from 'express';
import { pathPattern } from './route-guard.js';

const { method, path } = contract.pets.getPet;
const getPetPath = pathPattern(path);

/**
 * Marks every response of the deprecated getPet, errors included. Matched by hand rather than
 * mounted as an Express route, which would fail on an undecodable `petId` before running.
 */
export const deprecationHeaders: RequestHandler = (req, res, next) => {
  if ((req.method === method || req.method === 'HEAD') && getPetPath.test(req.path)) {
    res.set(GET_PET_DEPRECATION_HEADERS);
  }
  next();
};
