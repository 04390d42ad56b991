import { ErrorBodySchema, type ErrorCode } from '@animal-store/contract';
import { expectError, expectHeader } from '../expectations.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import { type RuleGroup, skip } from '../rule.js';

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
 * Whether the answer is a refusal by something in front of the service rather than the
 * service's: every answer of the service, those to requests its HTTP parser refuses included,
 * carries `X-Request-Id`, and every refusal an Error body. A proxy refusing a request it finds
 * too large or malformed itself answers with neither, and the service never sees it.
 */
function answeredInFront({ response }: Exchange): boolean {
  // A refusal (4xx): a proxy's 502 or 503 says the service is away, not that it was not asked.
  const refusal = response.status >= 400 && response.status < 500;
  if (!refusal || response.headers['x-request-id'] !== undefined) return false;
  try {
    return !ErrorBodySchema.safeParse(JSON.parse(response.body)).success;
  } catch {
    return true;
  }
}

/**
 * The answer is `code`'s Error, unless something in front answered instead: then the rule cannot
 * be told from here, and is skipped saying so.
 */
function expectRefusal(exchange: Exchange, code: ErrorCode): void {
  if (answeredInFront(exchange)) {
    const { status, statusText, headers } = exchange.response;
    skip(
      `answered ${status} ${statusText} by something in front of the service, it seems (no X-Request-Id, no Error body; ${headers['content-type'] ?? 'no Content-Type'}): a proxy refusing the request itself, so the service's answer cannot be seen from here`,
    );
  }
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
