/**
 * The rules every answer keeps, whatever was asked: never a 5xx, and every error an Error body
 * whose code is in the interface's table, whose status is the HTTP status, and whose messages
 * reveal nothing of the service's insides.
 */
import {
  ERROR_STATUS,
  type ErrorBody,
  ErrorBodySchema,
  ErrorDetailSchema,
} from '@animal-store/contract';
import type fc from 'fast-check';
import { expect } from 'vitest';
import { z } from 'zod';
import type { RawResponse } from './raw-http.js';

/** A response as the rules judge it, from `fetch` or from a raw socket. */
export interface Answer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export async function answerOf(res: Response): Promise<Answer> {
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

export const fromRaw = ({ status, headers, body }: RawResponse): Answer => ({
  status,
  headers,
  body,
});

/** Exactly the Error body's fields: a stray `stack` or `meta` is a leak too. */
const STRICT_ERROR_BODY = ErrorBodySchema.extend({
  details: z.array(ErrorDetailSchema.strict()).optional(),
}).strict();

/** What a message must never show: stack frames, file names, the database and its driver. */
const INTERNALS =
  /prisma|sqlite|libsql|postgres|node_modules|\bat \/|\bat [\w$.<>]+ \(|Error:|\.[cm]?[jt]s:\d|\bSELECT\b|\bINSERT\b|\bstack\b|ECONN|P\d{4}\b/i;

const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * Asserts the rules every answer keeps and returns its Error body (undefined for a success).
 * `echoes` are texts of the request the service may quote back (its path, its method): they are
 * the client's own words, not internals.
 */
export function expectWithinRules(
  answer: Answer,
  echoes: readonly string[] = [],
): ErrorBody | undefined {
  const context = `${answer.status} ${answer.body.slice(0, 500)}`;
  expect(answer.status, `a 5xx: ${context}`).toBeLessThan(500);
  expect(answer.status, context).toBeGreaterThanOrEqual(200);
  expect(answer.headers['content-type'], context).toBe(JSON_UTF8);
  expect(answer.headers['x-request-id'], context).toBeTruthy();
  if (answer.status < 400) return undefined;

  const parsed = STRICT_ERROR_BODY.safeParse(JSON.parse(answer.body));
  expect(parsed.error?.issues, `not an Error body: ${context}`).toBeUndefined();
  const body = parsed.data as ErrorBody;
  expect(body.status, context).toBe(answer.status);
  expect(ERROR_STATUS[body.code], `${body.code} travels with another status: ${context}`).toBe(
    answer.status,
  );
  const paths = (body.details ?? []).map((detail) => detail.path);
  expect(new Set(paths).size, `a field named twice in details: ${context}`).toBe(paths.length);

  const quoted = [...echoes, ...paths].filter((text) => text !== '');
  for (const message of [body.message, ...(body.details ?? []).map((d) => d.message)]) {
    const own = quoted.reduce((text, echo) => text.replaceAll(echo, ''), message);
    expect(own, `the message reveals internals: ${context}`).not.toMatch(INTERNALS);
  }
  if (answer.status === 401) expect(answer.headers['www-authenticate'], context).toBeTruthy();
  if (answer.status === 405) expect(answer.headers.allow, context).toBeTruthy();
  if (answer.status === 429) expect(answer.headers['retry-after'], context).toBeTruthy();
  return body;
}

/**
 * How many runs each property makes: `PROPERTY_RUNS_SCALE` multiplies them for a longer search;
 * `PROPERTY_SEED` and `PROPERTY_PATH` replay the counterexample a failure reports.
 */
export function propertyRuns<T>(numRuns: number): fc.Parameters<T> {
  const scale = Number(process.env.PROPERTY_RUNS_SCALE ?? 1);
  const seed = process.env.PROPERTY_SEED;
  return {
    numRuns: Math.max(1, Math.round(numRuns * scale)),
    ...(seed === undefined ? {} : { seed: Number(seed), path: process.env.PROPERTY_PATH }),
  };
}
