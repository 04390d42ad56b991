import { crossOriginRulesOf } from '@animal-store/contract';
import type { AppRouter } from '@ts-rest/core';
import cors from 'cors';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { contextOf } from './request-context.js';

type Header = readonly [name: string, value: string];

/** A request to run a middleware against that must not read it: any read throws. */
const UNREADABLE_REQUEST = new Proxy({} as Request, {
  get(_target, property) {
    throw new Error(`The browser policy read the request (${String(property)})`);
  },
});

/**
 * The headers `middleware` sets, found once by running it against a stand-in response that
 * records them. Helmet's headers depend only on its options, never on the request, so setting
 * the recorded list costs each response a dozen `setHeader` calls instead of helmet's dozen
 * middleware calls. A middleware that reads the request, fails or goes on later is refused at
 * start: its headers could differ from one request to the next.
 */
function headersSetBy(middleware: RequestHandler): Header[] {
  const headers: Header[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, String(value)]),
    removeHeader: () => {},
  };
  let finished = false;
  middleware(UNREADABLE_REQUEST, recorder as unknown as Response, (error?: unknown) => {
    if (error) throw error;
    finished = true;
  });
  if (!finished) throw new Error('The browser policy did not finish at once');
  return headers;
}

/**
 * What browsers are told about every response of this JSON API: nothing in it is to be run,
 * sniffed, framed or cached, and no referrer leaves with it (helmet's headers, with a
 * Content-Security-Policy that allows nothing at all). The answers to requests Node's parser
 * refuses carry them too (parser-errors.ts); `/docs` replaces the policy with its own.
 */
export const API_BROWSER_HEADERS: readonly Header[] = [
  ...headersSetBy(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
      referrerPolicy: { policy: 'no-referrer' },
    }),
  ),
  ['Cache-Control', 'no-store'],
];

/** Sets `API_BROWSER_HEADERS` on each response. */
export function apiBrowserPolicy(): RequestHandler {
  return (_req, res, next) => {
    for (const [name, value] of API_BROWSER_HEADERS) res.setHeader(name, value);
    next();
  };
}

/**
 * Cross-origin access to `contract`'s operations (`crossOriginRulesOf`) for the browser origins
 * in `origins` (none by default, so browsers on other origins cannot call the API): the headers
 * that let them read our responses,
 * errors and 429s included, and the answers to their preflights. A preflight is an `OPTIONS`
 * request from an allowed origin naming the method it wants (`Access-Control-Request-Method`): a
 * browser sends one per URL, without the key, so admission neither counts nor refuses it, and
 * the pipeline's last stage answers it 204. Any other `OPTIONS` is a method no path allows (405).
 */
export function crossOriginAccess(origins: readonly string[], contract: AppRouter) {
  const allowed = new Set(origins);
  const isPreflight = (req: Request): boolean =>
    req.method === 'OPTIONS' &&
    allowed.has(req.headers.origin ?? '') &&
    req.headers['access-control-request-method'] !== undefined;
  if (allowed.size === 0) return { isPreflight, headers: undefined };
  const rules = crossOriginRulesOf(contract);
  const setHeaders = cors({
    origin: [...origins],
    methods: [...rules.methods],
    allowedHeaders: [...rules.allowedHeaders],
    exposedHeaders: [...rules.exposedHeaders],
    maxAge: 600,
    // The answer is the pipeline's to give, once admission has set the rate-limit headers.
    preflightContinue: true,
  });
  const headers: RequestHandler = (req, res, next) => {
    // cors would add a preflight's headers to any OPTIONS request, answered 405 here; the 405
    // still depends on Origin, as every answer does when origins are allowed.
    if (req.method === 'OPTIONS' && contextOf(res).target.kind !== 'preflight') {
      res.vary('Origin');
      return next();
    }
    setHeaders(req, res, next);
  };
  return { isPreflight, headers };
}
