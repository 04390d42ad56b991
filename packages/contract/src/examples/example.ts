/**
 * An operation's behaviour, stated as examples: a request as a client sends it and the answer the
 * interface promises, both typed by the operation's route. The server's tests, the mock's tests
 * and the conformance check all run the same examples (`runExample`), so what an operation does
 * is written once. Why this form: docs/decisions/007-operations-stated-as-examples.md.
 */
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import type { z } from 'zod';
import { COMMON_RESPONSES } from '../common-responses.js';
import { errorResponseDocumentationOf } from '../errors.js';
import { type OperationsOf, operationsOf } from '../operations.js';
import type { Matcher, Reference, Template, UniqueValue } from './expected.js';

/** Text a request sends: as written, or made from the run's answers. */
export type Text = string | Reference | Template | UniqueValue;

/** A body the contract refuses, sent as JSON all the same: `invalid({ name: '' })`. */
export class InvalidBody {
  constructor(readonly json: unknown) {}
}

/** Bytes sent as they are, with the `Content-Type` given (none when undefined). */
export class RawBody {
  constructor(
    readonly text: string,
    readonly contentType?: string,
    /** How the documents show it when the text is too long to print: `a body of 16,385 bytes`. */
    readonly description?: string,
  ) {}
}

export const invalid = (json: unknown) => new InvalidBody(json);
export const raw = (text: string, contentType?: string, description?: string) =>
  new RawBody(text, contentType, description);

type InputOf<Schema> = Schema extends z.ZodTypeAny ? z.input<Schema> : never;

/** A request to one operation, as a client sends it: every part typed by the operation's route. */
export interface ExampleRequest<Route extends AppRoute> {
  /** The path's parameters as sent: an id is its digits, `'01'` included. */
  readonly params?: Route extends { pathParams: z.ZodTypeAny }
    ? { readonly [Name in keyof InputOf<Route['pathParams']>]: Text }
    : Readonly<Record<string, Text>>;
  /** The query: a list sends the parameter once per value. */
  readonly query?: Route extends { query: z.ZodTypeAny }
    ? { readonly [Name in keyof InputOf<Route['query']>]?: Text | readonly Text[] }
    : never;
  readonly headers?: Readonly<Record<string, Text>>;
  /** JSON of the route's body type, `invalid(json)` the contract refuses, or `raw(text, type)`. */
  readonly body?: Route extends { body: infer Body }
    ? InputOf<Body> | InvalidBody | RawBody
    : InvalidBody | RawBody;
  /** A fragment, sent in the target as no client should (`#top`). */
  readonly fragment?: string;
  /** The key under test unless told: no `Authorization` at all, or this value of it. */
  readonly credential?: 'none' | { readonly authorization: string };
}

/** What an answer's value is expected to be: the value, or a word for the values that are right. */
export type Expected<Value> =
  | Value
  | Matcher
  | Reference
  | Template
  | (Value extends readonly (infer Item)[]
      ? readonly Expected<Item>[]
      : Value extends object
        ? { readonly [Key in keyof Value]: Expected<Value[Key]> }
        : never);

type BodyOf<Response> = Response extends z.ZodTypeAny ? z.input<Response> : unknown;

/**
 * The answer promised: a status the route declares, its body (exactly, unless a word of
 * `expected.ts` says otherwise) and the headers named (any others are free; `absent` forbids one).
 */
export type ExpectedAnswer<Route extends AppRoute> = {
  readonly [Status in keyof Route['responses'] & number]: {
    readonly status: Status;
    readonly body?: Expected<BodyOf<Route['responses'][Status]>>;
    readonly headers?: Readonly<Record<string, Text | Matcher>>;
  };
}[keyof Route['responses'] & number];

type OperationName<Contract extends AppRouter> = keyof OperationsOf<Contract> & string;
// A conditional, not `& AppRoute`: the intersection would widen the route's statuses to any number.
type RouteNamed<Contract extends AppRouter, Name> = OperationsOf<Contract>[Name &
  keyof OperationsOf<Contract>] extends infer Route extends AppRoute
  ? Route
  : never;

/**
 * A request an example makes first, to stand on its answer: `created` of getPet's example is the
 * createPet whose pet it asks for. It must answer `status`, else its route's first success.
 */
export type Given<Contract extends AppRouter> = {
  readonly [Name in OperationName<Contract>]: {
    readonly operation: Name;
    readonly request: ExampleRequest<RouteNamed<Contract, Name>>;
    readonly status?: keyof RouteNamed<Contract, Name>['responses'] & number;
  };
}[OperationName<Contract>];

/** One example of an operation: what it shows, what it stands on, its request and its answer. */
export interface Example<Contract extends AppRouter, Route extends AppRoute> {
  /** What the example shows, a sentence a test and a report are named by. */
  readonly summary: string;
  /**
   * Requests made first, in order, each answer named for the references of those after it (and
   * of the request and answer), e.g. `ref('created.body.id')`.
   */
  readonly given?: Readonly<Record<string, Given<Contract>>>;
  readonly request: ExampleRequest<Route>;
  readonly response: ExpectedAnswer<Route>;
}

/** The examples of every operation of a contract: one missing is a type error that names it. */
export type ContractExamples<Contract extends AppRouter> = {
  readonly [Name in OperationName<Contract>]: readonly Example<
    Contract,
    RouteNamed<Contract, Name>
  >[];
};

/** One request of an example, with the route it goes to. */
export interface ExampleStep {
  /** The answer's name for references: a given's own, `self` for the example's request. */
  readonly name: string;
  readonly operation: string;
  readonly route: AppRoute;
  readonly request: ExampleRequest<AppRoute>;
  /** What the answer must be: for a given, only its status. */
  readonly response: ExpectedAnswer<AppRoute> | { readonly status: number };
}

/** An example ready to run: its steps in order, the last being the request it is about. */
export interface ExampleCase {
  readonly operation: string;
  readonly summary: string;
  /** `listPets: a page of at most limit pets, in ascending id order`. */
  readonly title: string;
  readonly steps: readonly ExampleStep[];
  /** Whether it may store anything: a deployment where writes are not allowed skips it. */
  readonly writes: boolean;
}

/** A given of any contract, as a run reads it. */
interface AnyGiven {
  readonly operation: string;
  readonly request: ExampleRequest<AppRoute>;
  readonly status?: number;
}

const READS = new Set(['GET', 'HEAD']);
const isSuccess = (status: number) => status >= 200 && status < 300;

function firstSuccess(route: AppRoute): number {
  const status = Object.keys(route.responses).map(Number).find(isSuccess);
  if (status === undefined) throw new Error(`${route.path} declares no success`);
  return status;
}

/**
 * Whether a step may store something: a request other than a read that sends a body its route
 * takes. A body the contract refuses (`invalid`, `raw`) stores nothing, whatever the answer, on a
 * deployment that conforms; the examples make such bodies invalid as records too, so that even one
 * that does not conform has nothing to store.
 */
function storesAnything({ route, request }: ExampleStep): boolean {
  if (READS.has(route.method)) return false;
  return !(request.body instanceof InvalidBody || request.body instanceof RawBody);
}

/** Every example of `contract`, in the contract's order of operations, ready to run. */
export function examplesOf<Contract extends AppRouter>(
  contract: Contract,
  examples: ContractExamples<Contract>,
): ExampleCase[] {
  const routes = new Map(operationsOf(contract).map(({ name, route }) => [name, route]));
  const routeNamed = (name: string): AppRoute => {
    const route = routes.get(name);
    if (route === undefined) throw new Error(`The contract has no operation named ${name}`);
    return route;
  };
  const byName = examples as unknown as Record<string, readonly Example<AppRouter, AppRoute>[]>;
  return [...routes.keys()].flatMap((operation) =>
    (byName[operation] ?? []).map((example) => {
      const given = (example.given ?? {}) as Readonly<Record<string, AnyGiven>>;
      const givens = Object.entries(given).map(([name, { operation, request, status }]) => {
        const route = routeNamed(operation);
        return {
          name,
          operation,
          route,
          request,
          response: { status: status ?? firstSuccess(route) },
        };
      });
      const steps = [
        ...givens,
        {
          name: 'self',
          operation,
          route: routeNamed(operation),
          request: example.request,
          response: example.response,
        },
      ];
      return {
        operation,
        summary: example.summary,
        title: `${operation}: ${example.summary}`,
        steps,
        writes: steps.some(storesAnything),
      };
    }),
  );
}

/** The statuses a route answers itself, besides those every operation may (401, 429, 5xx…). */
function ownStatuses(route: AppRoute): number[] {
  return Object.keys(route.responses)
    .map(Number)
    .filter((status) => !(status in COMMON_RESPONSES));
}

/** The error codes a route's response of `status` documents; none for a success. */
function documentedCodes(route: AppRoute, status: number): string[] {
  const documentation = errorResponseDocumentationOf(
    (route.responses as Record<number, unknown>)[status],
  );
  return Object.keys(documentation?.examples ?? {});
}

function exampleCode(step: ExampleStep): unknown {
  const { body } = step.response as { body?: { code?: unknown } };
  return body?.code;
}

/**
 * What the examples of `contract` leave unsaid: for each operation, each status it declares
 * itself, and each error code such a response documents, with no example answering it. Each
 * entry names the operation, e.g. `createPet answers 409 idempotency_key_reused in no example`.
 */
export function unexemplified(contract: AppRouter, cases: readonly ExampleCase[]): string[] {
  return operationsOf(contract).flatMap(({ name, route }) => {
    if (!isAppRoute(route)) return [];
    const answers = cases
      .filter((example) => example.operation === name)
      .map((example) => example.steps.at(-1) as ExampleStep);
    return ownStatuses(route).flatMap((status) => {
      const ofStatus = answers.filter((step) => step.response.status === status);
      const codes = documentedCodes(route, status);
      if (codes.length === 0) {
        return ofStatus.length > 0 ? [] : [`${name} answers ${status} in no example`];
      }
      return codes
        .filter((code) => !ofStatus.some((step) => exampleCode(step) === code))
        .map((code) => `${name} answers ${status} ${code} in no example`);
    });
  });
}
