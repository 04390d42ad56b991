/**
 * Runs an example against any implementation of the interface, through a transport that sends a
 * request as written and hands back the answer as received: the server's tests, the mock's tests
 * and the conformance check each bring their own, and all read the answers here, the same way.
 */
import type { AppRoute } from '@ts-rest/core';
import {
  type ExampleCase,
  type ExampleRequest,
  type ExampleStep,
  InvalidBody,
  RawBody,
} from './example.js';
import { Matcher, nextPageUrl, Reference, type Scope, Template, UniqueValue } from './expected.js';

/** Which credential a request carries: the key under test, none, or a value made up to fail. */
export type WireCredential = 'key' | 'none' | { readonly authorization: string };

/** A request as it goes on the wire, short of the key, which the transport adds. */
export interface WireRequest {
  readonly method: string;
  /** The path and query, and a fragment when an example sends one: `/v1/pets?limit=2`. */
  readonly target: string;
  /** The headers besides `Authorization` and `Content-Type`. */
  readonly headers: Readonly<Record<string, string>>;
  readonly credential: WireCredential;
  readonly body?: { readonly text: string; readonly contentType?: string };
}

/** An answer as the implementation sent it. */
export interface WireAnswer {
  readonly status: number;
  /** Lower-case names; a repeated header's values joined by `, `, as fetch joins them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Sends a request to the implementation under test; rejects when no answer came. */
export type Transport = (request: WireRequest) => Promise<WireAnswer>;

export interface ExampleExchange {
  /** The step's name: a given's, or `self`. */
  readonly step: string;
  readonly request: WireRequest;
  readonly answer: WireAnswer;
}

/** What became of an example: each way the answers differ from it (none when it held). */
export interface ExampleResult {
  readonly problems: readonly string[];
  /** Every request sent and its answer, in order: the last one is where it failed, if it did. */
  readonly exchanges: readonly ExampleExchange[];
}

/** An answer as references read it: its body parsed when it is JSON, its next page's query. */
interface RecordedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly next: Readonly<Record<string, string>> | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function recorded(answer: WireAnswer): RecordedAnswer {
  let body: unknown = answer.body;
  try {
    body = JSON.parse(answer.body);
  } catch {
    // Not JSON: references read it as text.
  }
  const next = answer.headers.link === undefined ? undefined : nextPageUrl(answer.headers.link);
  return {
    status: answer.status,
    headers: answer.headers,
    body,
    next: next && Object.fromEntries(next.searchParams),
  };
}

function scopeOf(answers: Map<string, RecordedAnswer>): Scope {
  const values = new Map<string, string>();
  return {
    lookup(path) {
      const [step = '', ...keys] = path.split('.');
      let value: unknown = answers.get(step);
      for (const key of keys) value = (value as Record<string, unknown> | undefined)?.[key];
      return value;
    },
    unique(label) {
      const value = values.get(label) ?? `${label}-${crypto.randomUUID()}`;
      values.set(label, value);
      return value;
    },
  };
}

/** A request's value with every reference, template and unique value replaced by what it reads. */
function resolved(value: unknown, scope: Scope): unknown {
  if (value instanceof Reference) return scope.lookup(value.path);
  if (value instanceof Template) return value.fill(scope);
  if (value instanceof UniqueValue) return scope.unique(value.label);
  if (Array.isArray(value)) return value.map((item) => resolved(item, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolved(item, scope)]),
    );
  }
  return value;
}

const text = (value: unknown, scope: Scope) => String(resolved(value, scope));

function targetOf(route: AppRoute, request: ExampleRequest<AppRoute>, scope: Scope): string {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => text(params[name], scope));
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value])
      query.append(name, text(item, scope));
  }
  const search = query.size > 0 ? `?${query}` : '';
  return `${path}${search}${request.fragment === undefined ? '' : `#${request.fragment}`}`;
}

function bodyOf(body: unknown, scope: Scope): WireRequest['body'] {
  if (body === undefined) return undefined;
  if (body instanceof RawBody) {
    return body.contentType === undefined
      ? { text: body.text }
      : { text: body.text, contentType: body.contentType };
  }
  const json = body instanceof InvalidBody ? body.json : body;
  return { text: JSON.stringify(resolved(json, scope)), contentType: 'application/json' };
}

/** The request of `step`, as it goes on the wire, its references read from the answers so far. */
export function wireRequestOf(step: ExampleStep, scope: Scope): WireRequest {
  const { request, route } = step;
  const headers = Object.fromEntries(
    Object.entries(request.headers ?? {}).map(([name, value]) => [
      name.toLowerCase(),
      text(value, scope),
    ]),
  );
  const body = bodyOf(request.body, scope);
  return {
    method: route.method,
    target: targetOf(route, request, scope),
    headers,
    credential: request.credential ?? 'key',
    ...(body && { body }),
  };
}

const shown = (value: unknown) => JSON.stringify(value) ?? String(value);

/** How `actual` differs from `expected`, each difference named by where it is (`body.id`). */
function differences(expected: unknown, actual: unknown, scope: Scope, where: string): string[] {
  if (expected instanceof Matcher) {
    return expected.check(actual, scope).map((problem) => `${where} ${problem}`);
  }
  const wanted =
    expected instanceof Reference || expected instanceof Template || expected instanceof UniqueValue
      ? resolved(expected, scope)
      : expected;
  if (Array.isArray(wanted) && Array.isArray(actual) && wanted.length === actual.length) {
    return wanted.flatMap((item, index) =>
      differences(item, actual[index], scope, `${where}[${index}]`),
    );
  }
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isObject(wanted) && isObject(actual)) {
    const keys = new Set([...Object.keys(wanted), ...Object.keys(actual)]);
    return [...keys].flatMap((key) => {
      if (!(key in actual)) return [`${where}.${key} is missing`];
      if (!(key in wanted)) return [`${where}.${key} is there, expected no such field`];
      return differences(wanted[key], actual[key], scope, `${where}.${key}`);
    });
  }
  return shown(wanted) === shown(actual)
    ? []
    : [`${where} is ${shown(actual)}, expected ${shown(wanted)}`];
}

/** How an answer differs from the one `step` promises. */
function answerProblems(step: ExampleStep, answer: RecordedAnswer, scope: Scope): string[] {
  const promised = step.response as {
    status: number;
    body?: unknown;
    headers?: Readonly<Record<string, unknown>>;
  };
  if (answer.status !== promised.status) {
    return [`answered ${answer.status}, expected ${promised.status}: ${shown(answer.body)}`];
  }
  const problems = Object.entries(promised.headers ?? {}).flatMap(([name, value]) =>
    differences(value, answer.headers[name.toLowerCase()], scope, name),
  );
  if (promised.body !== undefined) {
    const type = answer.headers['content-type'];
    if (type?.toLowerCase() !== JSON_TYPE) {
      problems.push(`Content-Type is ${type ?? 'absent'}, expected ${JSON_TYPE}`);
    }
    problems.push(...differences(promised.body, answer.body, scope, 'body'));
  }
  return problems;
}

/**
 * Sends each step of `example` in order and reads each answer: a given's status, then the whole
 * answer promised to the last step. Stops at the first step that is not as promised.
 */
export async function runExample(example: ExampleCase, send: Transport): Promise<ExampleResult> {
  const answers = new Map<string, RecordedAnswer>();
  const scope = scopeOf(answers);
  const exchanges: ExampleExchange[] = [];
  for (const step of example.steps) {
    const request = wireRequestOf(step, scope);
    const answer = await send(request);
    exchanges.push({ step: step.name, request, answer });
    const read = recorded(answer);
    answers.set(step.name, read);
    const isGiven = step.name !== 'self';
    const problems = isGiven
      ? answer.status === step.response.status
        ? []
        : [
            `given ${step.name} (${step.operation}) answered ${answer.status}, expected ${step.response.status}: ${shown(read.body)}`,
          ]
      : answerProblems(step, read, scope);
    if (problems.length > 0) return { problems, exchanges };
  }
  return { problems: [], exchanges };
}
