/**
 * What the mock serves: an API, that is a ts-rest contract and an implementation of each of its
 * operations, typed from the contract as ts-rest types a server's handlers. Everything else the
 * mock answers (routing, 404 and 405, HEAD, CORS, keys and rate limits, bodies, validation,
 * deprecation headers) it reads from the contract, so that an operation the contract gains needs
 * its implementation and nothing more.
 */
import { type ErrorDetail, operationsOf } from '@animal-store/contract';
import type { AppRoute, AppRouter, ServerInferRequest, ServerInferResponses } from '@ts-rest/core';

/** What an operation is told of its request beyond the request's own parts. */
export interface OperationContext {
  /** The mock's time. */
  readonly nowMs: number;
  /** The origin `Link` URLs name: the public URL, else the one the request addressed. */
  readonly origin: string;
  /** The valid API key the request carries: operations run for no other. */
  readonly apiKey: string;
  /** The JSON body as sent, before its schema defaulted anything; undefined without one. */
  readonly sentBody: unknown;
}

/** An answer of the route, as the contract types it, with the headers particular to it. */
export type Answer<R extends AppRoute> = ServerInferResponses<R> & {
  readonly headers?: Record<string, string>;
};

/** The request as sent, before its schemas read it: what `check` sees. */
export interface SentRequest {
  readonly query: Readonly<Record<string, string | string[]>>;
  readonly headers: Readonly<Record<string, string>>;
}

/** What one operation does, on the state its API keeps. */
export interface OperationImplementation<R extends AppRoute> {
  /** Checks its schemas cannot make (a cursor's signature), reported beside theirs. */
  readonly check?: (request: SentRequest, context: OperationContext) => Promise<ErrorDetail[]>;
  /** The operation, on a request its schemas accepted. */
  readonly run: (request: ServerInferRequest<R>, context: OperationContext) => Promise<Answer<R>>;
}

/** An implementation of every operation of `TContract`, nested as its routers are. */
export type Implementations<TContract extends AppRouter> = {
  readonly [Name in keyof TContract]: TContract[Name] extends AppRoute
    ? OperationImplementation<TContract[Name]>
    : TContract[Name] extends AppRouter
      ? Implementations<TContract[Name]>
      : never;
};

/** An API the mock serves, in its first state. */
export interface MockApi<TContract extends AppRouter = AppRouter> {
  readonly contract: TContract;
  readonly operations: Implementations<TContract>;
  /** The OpenAPI document of the contract, served at `/v1/openapi.json`. */
  readonly document: unknown;
}

/** Makes the API in its first state: the mock calls it when it is made and on each `reset()`. */
export type MockApiDefinition = () => MockApi;

/**
 * Declares an API: the type checker holds `define`'s implementations to its contract here, once;
 * the mock, which serves any contract, takes it as a `MockApiDefinition`.
 */
export function defineMockApi<TContract extends AppRouter>(
  define: () => MockApi<TContract>,
): MockApiDefinition {
  return define as unknown as MockApiDefinition;
}

type AnyImplementation = OperationImplementation<AppRoute>;

const isImplementation = (value: unknown): value is AnyImplementation =>
  typeof (value as Partial<AnyImplementation> | undefined)?.run === 'function';

/** The implementations, by operation name (unique across a contract, as `operationsOf` holds). */
function implementationsByName(operations: object): Map<string, AnyImplementation> {
  const byName = new Map<string, AnyImplementation>();
  const visit = (node: object) => {
    for (const [name, entry] of Object.entries(node)) {
      if (isImplementation(entry)) byName.set(name, entry);
      else if (entry !== null && typeof entry === 'object') visit(entry);
    }
  };
  visit(operations);
  return byName;
}

/** One operation of the API, and what implements it. */
export interface ImplementedOperation {
  readonly name: string;
  readonly route: AppRoute;
  readonly implementation: AnyImplementation;
}

/** Every operation of `api`'s contract with its implementation; one missing is refused at once. */
export function implementedOperations(api: MockApi): ImplementedOperation[] {
  const implementations = implementationsByName(api.operations);
  return operationsOf(api.contract).map(({ name, route }) => {
    const implementation = implementations.get(name);
    if (implementation === undefined) throw new Error(`The mock has no implementation of ${name}`);
    return { name, route, implementation };
  });
}
