import type { ErrorCode } from '@animal-store/contract';
import { expectError, expectHeader, skipIfAnsweredInFront } from '../expectations.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import type { RuleGroup } from '../rule.js';

/** The most request header bytes a deployment reads (docs/interface.md, "Size limits and bodies"). */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Past the limit by 1 KiB, in lines of under 4 KiB: a proxy in front that holds lines of 4 or
 * 8 KiB (nginx's default) passes them on, for the deployment to refuse.
 */
const PADDING_LINES = 5;
const PADDING_BYTES = Math.ceil((MAX_HEADER_BYTES + 1024) / PADDING_LINES);
const paddingName = (line: number) => `X-Conformance-Padding-${line}`;
const PADDING = Array.from({ length: PADDING_LINES }, (_, index) => paddingName(index + 1));

export const OVERSIZED_HEADERS: Pick<RequestSpec, 'headers' | 'headerShell'> = {
  headers: Object.fromEntries(PADDING.map((name) => [name, 'x'.repeat(PADDING_BYTES)])),
  headerShell: Object.fromEntries(
    PADDING.map((name) => [name, `$(head -c ${PADDING_BYTES} /dev/zero | tr '\\0' x)`]),
  ),
};

/**
 * The answer is `code`'s Error, unless something in front answered instead: then the rule cannot
 * be told from here, and is skipped saying so.
 */
function expectRefusal(exchange: Exchange, code: ErrorCode): void {
  skipIfAnsweredInFront(exchange);
  expectError(exchange, code);
  expectHeader(exchange, 'X-Request-Id');
}

/**
 * Requests a client should never send, refused before routing. Sent with the key, so that those
 * that reach the service are counted against it rather than the calling IP's small budget. They
 * run after the rules over every answer of the run (X-Request-Id, X-RateLimit-*): a proxy in
 * front may refuse them itself, with an answer of its own that says nothing about the service.
 */
export const edgeRules: RuleGroup = {
  name: 'Requests at the edges of HTTP (431, 400)',
  rules: [
    {
      name: 'request headers over 16 KiB answer 431 headers_too_large',
      async check(probe) {
        const exchange = await probe.send({
          method: 'GET',
          target: '/v1/pets?limit=1',
          ...OVERSIZED_HEADERS,
        });
        expectRefusal(exchange, 'headers_too_large');
      },
    },
    {
      name: 'a # in the request target answers 400 malformed_request',
      async check(probe) {
        const exchange = await probe.send({
          method: 'GET',
          target: '/v1/pets?limit=1#conformance-check',
          verbatim: true,
        });
        expectRefusal(exchange, 'malformed_request');
      },
    },
    {
      name: 'a request target of another scheme than http and https (ftp://…) answers 400 malformed_request',
      async check(probe) {
        const { host } = new URL(probe.options.baseUrl);
        const exchange = await probe.send({
          method: 'GET',
          target: `ftp://${host}/v1/pets?limit=1`,
          verbatim: true,
        });
        expectRefusal(exchange, 'malformed_request');
      },
    },
    {
      name: 'OPTIONS * answers 404 not_found: it names no path',
      async check(probe) {
        const exchange = await probe.send({ method: 'OPTIONS', target: '*', verbatim: true });
        expectRefusal(exchange, 'not_found');
      },
    },
  ],
};
