import cors from 'cors';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

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
 * Content-Security-Policy that allows nothing at all). `/docs` replaces the policy with its own.
 */
export function apiBrowserPolicy(): RequestHandler {
  const headers: Header[] = [
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
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** The headers a page on another origin may read from our responses. */
const EXPOSED_HEADERS = [
  'Link',
  'Location',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-Id',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
];

/**
 * Cross-origin access for the browser origins in `origins` (none by default, so browsers on
 * other origins cannot call the API). Preflights are answered here, before rate limiting: a
 * browser sends one per URL, carrying no key, and they must not use up its IP's quota.
 */
export function crossOriginAccess(origins: readonly string[]): RequestHandler[] {
  if (origins.length === 0) return [];
  return [
    cors({
      origin: [...origins],
      methods: ['GET', 'HEAD', 'POST'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    }),
  ];
}
