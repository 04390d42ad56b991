import type { Request } from 'autocannon';

type Shape = (request: Request) => Request;

const json = (request: Request, body: string): Request => ({
  ...request,
  method: 'POST',
  path: '/v1/pets',
  headers: { ...request.headers, 'content-type': 'application/json' },
  body,
});

/** Just over the server's 16 KiB body limit. */
const OVERSIZE_BODY = JSON.stringify({ name: 'x'.repeat(17 * 1024), categoryId: 1 });

const BAD_QUERIES = [
  '/v1/pets?limit=0',
  '/v1/pets?limit=abc',
  '/v1/pets?status=lost',
  '/v1/pets?limit=5&limit=6',
  '/v1/pets?cursor=42.AAAAAAAAAAAAAAAAAAAAAA',
];

let sent = 0;

/**
 * Requests a public API meets every day, each answered with a 4xx: malformed JSON, unknown
 * routes, a body over the limit, bad query values, and an invalid bearer token. Invalid tokens
 * are counted against the client IP, then refused with 429 once it is banned: also a 4xx.
 */
const HOSTILE_SHAPES: Shape[] = [
  (request) => json(request, '{"name": "Rex", "categoryId": '),
  (request) => ({ ...request, method: 'GET', path: `/v1/animals/${sent}` }),
  (request) => json(request, OVERSIZE_BODY),
  (request) => ({
    ...request,
    method: 'GET',
    path: BAD_QUERIES[sent % BAD_QUERIES.length] ?? '/v1/pets?limit=0',
  }),
  (request) => ({
    ...request,
    method: 'GET',
    path: '/v1/pets',
    headers: { ...request.headers, authorization: 'Bearer ask_not-a-key-this-server-issued' },
  }),
];

/** One hostile request, cycling through the kinds so each gets its share. */
export function hostileRequest(request: Request): Request {
  sent += 1;
  const shape = HOSTILE_SHAPES[sent % HOSTILE_SHAPES.length];
  if (!shape) throw new Error('no hostile request shapes');
  return shape(request);
}
