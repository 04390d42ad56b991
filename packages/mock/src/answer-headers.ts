/** The headers every answer carries (docs/interface.md, "Conventions" and "Browser headers"). */

const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:]{1,128}$/;

/** The headers browsers on other origins may read. */
const EXPOSED_HEADERS =
  'Link, Location, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, Idempotent-Replayed, Deprecation, Sunset';

export function commonHeaders(
  request: Request,
  nowMs: number,
  corsOrigins: ReadonlySet<string>,
): Record<string, string> {
  const sentId = request.headers.get('x-request-id');
  const headers: Record<string, string> = {
    'X-Request-Id': sentId !== null && SANE_REQUEST_ID.test(sentId) ? sentId : crypto.randomUUID(),
    // The mock's clock, not the machine's: X-RateLimit-Reset is read against it.
    Date: new Date(nowMs).toUTCString(),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': "default-src 'none'",
  };
  const origin = request.headers.get('origin');
  if (origin === null || !corsOrigins.has(origin)) return headers;
  return {
    ...headers,
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    Vary: 'Origin',
  };
}

/** The answer to a preflight from an allowed origin, for the methods and headers v1 takes. */
export function preflightResponse(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Methods': 'GET, HEAD, POST',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key, X-Request-Id',
      'Access-Control-Max-Age': '600',
    },
  });
}

/**
 * `response` with `headers` added, and without its body for a HEAD. A dropped connection stays
 * what it is. A second `Link` (getPet's successor beside a next page) joins the first.
 */
export function withHeaders(
  response: Response,
  headers: Record<string, string>,
  { head }: { head: boolean },
): Response {
  if (response.type === 'error') return response;
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'Link' && merged.has('link')) merged.append(name, value);
    else merged.set(name, value);
  }
  return new Response(head ? null : response.body, { status: response.status, headers: merged });
}
