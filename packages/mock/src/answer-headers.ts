/** The headers every answer carries (docs/interface.md, "Conventions" and "Browser headers"). */
import type { CrossOriginRules } from '@animal-store/contract';

const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:]{1,128}$/;

/**
 * What browsers are told of every answer: nothing in it is to be run, sniffed, framed or cached,
 * and no referrer leaves with it. The server's (apps/server/src/http/browser-policy.ts, set by
 * helmet), value for value: test/raw-requests.test.ts compares every answer's with its.
 */
const BROWSER_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none';frame-ancestors 'none'",
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Origin-Agent-Cluster': '?1',
  'Referrer-Policy': 'no-referrer',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-DNS-Prefetch-Control': 'off',
  'X-Download-Options': 'noopen',
  'X-Frame-Options': 'SAMEORIGIN',
  'X-Permitted-Cross-Domain-Policies': 'none',
  'X-XSS-Protection': '0',
  'Cache-Control': 'no-store',
};

/** Who may call the mock from pages of their own, and what they may do (`crossOriginRulesOf`). */
export interface CrossOrigin {
  readonly origins: ReadonlySet<string>;
  readonly rules: CrossOriginRules;
}

/** `X-Request-Id`, `Date` (the mock's clock: `X-RateLimit-Reset` is read against it) and the browser headers. */
export function commonHeaders(request: Request, nowMs: number): Record<string, string> {
  const sentId = request.headers.get('x-request-id');
  return {
    'X-Request-Id': sentId !== null && SANE_REQUEST_ID.test(sentId) ? sentId : crypto.randomUUID(),
    Date: new Date(nowMs).toUTCString(),
    ...BROWSER_HEADERS,
  };
}

/**
 * The CORS headers of an answer, as the `cors` middleware writes them for the server: once any
 * origin is allowed, every answer varies by `Origin` and names the headers a page may read, and
 * one to an allowed origin may be read there. Every answer to a preflight, an error too, names
 * the methods and request headers of the contract's operations; an `OPTIONS` that is no
 * preflight (a 405) gets the `Vary` alone.
 */
export function crossOriginHeaders(
  request: Request,
  { origins, rules }: CrossOrigin,
  { preflight }: { preflight: boolean },
): Record<string, string> {
  if (origins.size === 0) return {};
  if (request.method.toUpperCase() === 'OPTIONS' && !preflight) return { Vary: 'Origin' };
  const origin = request.headers.get('origin');
  return {
    ...(origin !== null && origins.has(origin) && { 'Access-Control-Allow-Origin': origin }),
    Vary: 'Origin',
    ...(preflight && {
      'Access-Control-Allow-Methods': rules.methods.join(','),
      'Access-Control-Allow-Headers': rules.allowedHeaders.join(','),
      'Access-Control-Max-Age': '600',
    }),
    'Access-Control-Expose-Headers': rules.exposedHeaders.join(','),
  };
}

/** Whether the request is a preflight: an `OPTIONS` from an allowed origin naming its method. */
export const isPreflight = (request: Request, { origins }: CrossOrigin) =>
  request.method.toUpperCase() === 'OPTIONS' &&
  origins.has(request.headers.get('origin') ?? '') &&
  request.headers.has('access-control-request-method');

/** The answer to a preflight, its headers those of `crossOriginHeaders`. */
export const preflightResponse = () =>
  new Response(null, { status: 204, headers: { 'Content-Length': '0' } });

/**
 * `response` with `headers` added; for a HEAD, without its body but with its length, as the GET's
 * answer. A dropped connection stays what it is. A second `Link` (a deprecated operation's
 * successor beside a next page) joins the first.
 */
export async function withHeaders(
  response: Response,
  headers: Record<string, string>,
  { head }: { head: boolean },
): Promise<Response> {
  if (response.type === 'error') return response;
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'Link' && merged.has('link')) merged.append(name, value);
    else merged.set(name, value);
  }
  if (head && response.body !== null) {
    merged.set('Content-Length', String((await response.arrayBuffer()).byteLength));
  }
  return new Response(head ? null : response.body, { status: response.status, headers: merged });
}
