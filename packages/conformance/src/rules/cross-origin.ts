import { crossOriginRulesOf } from '@animal-store/contract';
import { type ApiUnderTest, operationsUnderTest } from '../api-under-test.js';
import { expectError, expectHeader, expectStatus, expectThat } from '../expectations.js';
import type { Exchange } from '../http/exchange.js';
import { hasBody, type Operation, pathOf } from '../operations.js';
import { type Probe, type Rule, type RuleGroup, skip } from '../rule.js';
import { rateLimitHeaders } from './rate-limit.js';

/** An origin no deployment allows: `.invalid` is reserved never to resolve (RFC 6761). */
const NOT_ALLOWED_ORIGIN = 'https://not-allowed.conformance-check.invalid';

/** The request headers a page sends an operation: those its route declares, and a body's type. */
function requestHeadersOf(operation: Operation): string[] {
  const declared = operation.route.headers as { shape?: object } | undefined;
  const names = Object.keys(declared?.shape ?? declared ?? {}).map((name) => name.toLowerCase());
  return hasBody(operation) ? ['content-type', ...names] : names;
}

/** What a page would ask before calling `operation`: its method and the headers it sends. */
function preflightHeaders(origin: string, operation?: Operation): Record<string, string> {
  const method = operation?.route.method ?? 'POST';
  const headers = operation ? requestHeadersOf(operation) : ['content-type'];
  return {
    Origin: origin,
    'Access-Control-Request-Method': method,
    ...(headers.length > 0 && { 'Access-Control-Request-Headers': headers.join(', ') }),
  };
}

/** The first operation of each method: a page's preflight for each method the API takes. */
function oneOperationPerMethod(operations: readonly Operation[]): Operation[] {
  const byMethod = new Map<string, Operation>();
  for (const operation of operations) {
    if (!byMethod.has(operation.route.method)) byMethod.set(operation.route.method, operation);
  }
  return [...byMethod.values()];
}

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

/** The preflight rule of one method: answered 204, allowing the method and the headers it sends. */
function preflightRule(operation: Operation): Rule {
  const { method } = operation.route;
  return {
    name: `a preflight for ${method} from the allowed origin (--origin) answers 204 with Access-Control-* and X-RateLimit-*`,
    async check(probe) {
      const origin = allowedOrigin(probe);
      const exchange = await probe.send({
        method: 'OPTIONS',
        target: pathOf(operation),
        credential: 'none',
        headers: preflightHeaders(origin, operation),
      });
      expectStatus(exchange, 204);
      expectThat(exchange.response.body === '', 'the 204 has a body', exchange);
      expectOriginAllowed(exchange, origin);
      const methods = listed(expectHeader(exchange, 'Access-Control-Allow-Methods'));
      expectThat(
        methods.has(method.toLowerCase()),
        `Access-Control-Allow-Methods does not list ${method}`,
        exchange,
      );
      const headers = listed(expectHeader(exchange, 'Access-Control-Allow-Headers'));
      for (const name of requestHeadersOf(operation)) {
        expectThat(
          headers.has(name) || headers.has('*'),
          `Access-Control-Allow-Headers does not list ${name}`,
          exchange,
        );
      }
      expectHeader(exchange, 'X-Request-Id');
      rateLimitHeaders(exchange);
    },
  };
}

/**
 * What pages on other origins may do: a preflight of each method the API's operations take is
 * answered from an allowed origin and refused from another, and an answer lets the page read
 * every header the contract's answers may carry (`crossOriginRulesOf`).
 */
export const crossOriginRules = (api: ApiUnderTest): RuleGroup => {
  const operations = operationsUnderTest(api);
  const readable = crossOriginRulesOf(api.contract).exposedHeaders;
  return {
    name: 'Other origins (CORS)',
    rules: [
      {
        name: 'an OPTIONS preflight from an origin not allowed answers 405 method_not_allowed, allowing no origin',
        async check(probe) {
          const exchange = await probe.send({
            method: 'OPTIONS',
            target: '/v1/pets',
            credential: 'none',
            headers: preflightHeaders(NOT_ALLOWED_ORIGIN),
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
      ...oneOperationPerMethod(operations).map(preflightRule),
      {
        name: 'listPets from the allowed origin (--origin) lets the page read every header its answers may carry',
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
          const missing = readable.filter((name) => !exposed.has(name.toLowerCase()));
          expectThat(
            missing.length === 0,
            `Access-Control-Expose-Headers does not list ${missing.join(', ')}`,
            exchange,
          );
        },
      },
    ],
  };
};
