/**
 * What a rule expects of an answer. Each throws a `RuleViolation` carrying the exchange, so the
 * report shows the request, the answer and a curl command to replay it.
 */
import {
  ERROR_STATUS,
  type ErrorBody,
  ErrorBodySchema,
  type ErrorCode,
} from '@animal-store/contract';
import type { z } from 'zod';
import type { Exchange } from './http/exchange.js';
import { RuleViolation, skip } from './rule.js';

export function expectThat(condition: boolean, message: string, exchange?: Exchange): void {
  if (!condition) throw new RuleViolation(message, exchange);
}

/** Why an answer may not be the deployment's verdict on the rule at all. */
function hintFor(exchange: Exchange): string {
  const { status, headers } = exchange.response;
  if (status === 429) {
    return ` (the key or this IP is over its rate limit: run again after Retry-After, ${headers['retry-after'] ?? '?'} s)`;
  }
  if (status === 503) return ' (the deployment is busy or cannot reach its database)';
  return '';
}

export function expectStatus(exchange: Exchange, status: number): void {
  const actual = exchange.response.status;
  expectThat(
    actual === status,
    `expected status ${status}, got ${actual}${hintFor(exchange)}`,
    exchange,
  );
}

/** A header's value; a violation when it is missing. */
export function expectHeader(exchange: Exchange, name: string): string {
  const value = exchange.response.headers[name.toLowerCase()];
  expectThat(value !== undefined, `expected the ${name} header, got none`, exchange);
  return value as string;
}

export function expectHeaderValue(exchange: Exchange, name: string, expected: string): void {
  const value = expectHeader(exchange, name);
  expectThat(value === expected, `expected ${name}: ${expected}, got ${name}: ${value}`, exchange);
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The body, read with `schema` (a response schema of the contract). */
export function expectBody<Schema extends z.ZodTypeAny>(
  exchange: Exchange,
  schema: Schema,
): z.output<Schema> {
  const type = exchange.response.headers['content-type'];
  expectThat(
    type?.toLowerCase() === JSON_CONTENT_TYPE,
    `expected Content-Type: ${JSON_CONTENT_TYPE}, got ${type ?? 'none'}`,
    exchange,
  );
  let json: unknown;
  try {
    json = JSON.parse(exchange.response.body);
  } catch {
    throw new RuleViolation('expected a JSON body, got text that does not parse', exchange);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`,
    );
    throw new RuleViolation(
      `the body is not as the contract says: ${problems.join('; ')}`,
      exchange,
    );
  }
  return parsed.data;
}

/** An Error body of `code`, whose `status` is the answer's and the code's. */
export function expectError(exchange: Exchange, code: ErrorCode): ErrorBody {
  expectStatus(exchange, ERROR_STATUS[code]);
  const body = expectBody(exchange, ErrorBodySchema);
  expectThat(body.code === code, `expected code ${code}, got ${body.code}`, exchange);
  expectThat(
    body.status === exchange.response.status,
    `the body's status ${body.status} is not the answer's ${exchange.response.status}`,
    exchange,
  );
  return body;
}

/** A `validation_failed` answer whose `details` name each of `paths`, once. */
export function expectValidationDetails(exchange: Exchange, paths: readonly string[]): void {
  const { details = [] } = expectError(exchange, 'validation_failed');
  const named = details.map((detail) => detail.path);
  for (const path of paths) {
    const times = named.filter((name) => name === path).length;
    expectThat(
      times === 1,
      `expected one details entry for ${path}, got ${times} (details: ${named.join(', ') || 'none'})`,
      exchange,
    );
  }
}

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
 * Skips the rule when something in front of the service answered instead of it: the rule cannot
 * be told from here.
 */
export function skipIfAnsweredInFront(exchange: Exchange): void {
  if (!answeredInFront(exchange)) return;
  const { status, statusText, headers } = exchange.response;
  skip(
    `answered ${status} ${statusText} by something in front of the service, it seems (no X-Request-Id, no Error body; ${headers['content-type'] ?? 'no Content-Type'}): a proxy refusing the request itself, so the service's answer cannot be seen from here`,
  );
}
