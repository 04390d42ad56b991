import { expectError, expectHeader, expectStatus, expectThat } from '../expectations.js';
import type { Exchange } from '../http/exchange.js';
import { type Probe, type RuleGroup, skip } from '../rule.js';
import { rateLimitHeaders } from './rate-limit.js';

/** An origin no deployment allows: `.invalid` is reserved never to resolve (RFC 6761). */
const NOT_ALLOWED_ORIGIN = 'https://not-allowed.conformance-check.invalid';

/** What a page would ask to send to createPet: its method and the headers it declares. */
const PREFLIGHT_HEADERS = (origin: string) => ({
  Origin: origin,
  'Access-Control-Request-Method': 'POST',
  'Access-Control-Request-Headers': 'content-type, idempotency-key',
});

/** The headers a page on an allowed origin may read (docs/interface.md, "Browser headers and other origins"). */
const READABLE_HEADERS = [
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

const listed = (value: string) =>
  new Set(
    value
      .split(',')
      .map((item) => item.trim().toLowerCase())
      .filter(Boolean),
  );

function allowedOrigin(probe: Probe): string {
  const { origin } = probe.options;
  if (origin === undefined) return skip('no --origin given (an origin the deployment allows)');
  return origin;
}

function expectOriginAllowed(exchange: Exchange, origin: string): void {
  const allowed = expectHeader(exchange, 'Access-Control-Allow-Origin');
  expectThat(
    allowed === origin || allowed === '*',
    `expected Access-Control-Allow-Origin: ${origin}, got ${allowed}`,
    exchange,
  );
}

export const crossOriginRules: RuleGroup = {
  name: 'Other origins (CORS)',
  rules: [
    {
      name: 'an OPTIONS preflight from an origin not allowed answers 405 method_not_allowed, allowing no origin',
      async check(probe) {
        const exchange = await probe.send({
          method: 'OPTIONS',
          target: '/v1/pets',
          credential: 'none',
          headers: PREFLIGHT_HEADERS(NOT_ALLOWED_ORIGIN),
        });
        expectError(exchange, 'method_not_allowed');
        const allowed = exchange.response.headers['access-control-allow-origin'];
        expectThat(
          allowed === undefined,
          `Access-Control-Allow-Origin: ${allowed} answers an origin the deployment cannot allow`,
          exchange,
        );
      },
    },
    {
      name: 'a preflight from the allowed origin (--origin) answers 204 with Access-Control-* and X-RateLimit-*',
      async check(probe) {
        const origin = allowedOrigin(probe);
        const exchange = await probe.send({
          method: 'OPTIONS',
          target: '/v1/pets',
          credential: 'none',
          headers: PREFLIGHT_HEADERS(origin),
        });
        expectStatus(exchange, 204);
        expectThat(exchange.response.body === '', 'the 204 has a body', exchange);
        expectOriginAllowed(exchange, origin);
        const methods = listed(expectHeader(exchange, 'Access-Control-Allow-Methods'));
        expectThat(
          methods.has('post'),
          'Access-Control-Allow-Methods does not list POST',
          exchange,
        );
        const headers = listed(expectHeader(exchange, 'Access-Control-Allow-Headers'));
        for (const name of ['content-type', 'idempotency-key']) {
          expectThat(
            headers.has(name) || headers.has('*'),
            `Access-Control-Allow-Headers does not list ${name}`,
            exchange,
          );
        }
        expectHeader(exchange, 'X-Request-Id');
        rateLimitHeaders(exchange);
      },
    },
    {
      name: 'listPets from the allowed origin (--origin) lets the page read Link, X-RateLimit-*, X-Request-Id and the others',
      async check(probe) {
        const origin = allowedOrigin(probe);
        const exchange = await probe.send({
          method: 'GET',
          target: '/v1/pets?limit=1',
          headers: { Origin: origin },
        });
        expectStatus(exchange, 200);
        expectOriginAllowed(exchange, origin);
        const exposed = listed(expectHeader(exchange, 'Access-Control-Expose-Headers'));
        const missing = READABLE_HEADERS.filter((name) => !exposed.has(name.toLowerCase()));
        expectThat(
          missing.length === 0,
          `Access-Control-Expose-Headers does not list ${missing.join(', ')}`,
          exchange,
        );
      },
    },
  ],
};
