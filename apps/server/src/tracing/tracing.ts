/**
 * Tracing: what the server tells a tracer (docs/operations.md, "Tracing", says what each span
 * means).
 *
 * The pipeline reports each request to a `RequestTrace` (its target, its admission, a failure,
 * its end), and each call to a dependency, a database call or a Redis command, to the `Tracing`
 * it was started from, with the requests the call is made for. Unless OpenTelemetry's standard
 * variables ask for traces, that is `TRACING_OFF`, whose every call does nothing, and no
 * OpenTelemetry module is loaded: the implementation (open-telemetry.ts) is imported by
 * `startTracing` (start-tracing.ts) only once they do.
 *
 * What it relies on: whoever calls a dependency names the requests it calls it for. Nothing is
 * carried in an async context: on Node 20 carrying one costs every promise of the process a
 * hook, whether a request is sampled or not (docs/decisions/004-traces-without-async-context.md).
 * So a call shared by the requests of one turn (a batched store's call, a Redis script call that decides a
 * subject's requests together) is recorded in each one's trace, with how many requests shared
 * it, and no trace shows a request waiting alone for work it shared.
 */
import type { ServerResponse } from 'node:http';
import type { Request } from 'express';

/** What the pipeline knows of a request when its trace begins. */
export interface TracedRequest {
  /** What it is for, as metrics label it: an operation's name, a probe's, `unmatched`… */
  label: string;
  /** Its route template (`/v1/pets/{petId}`), when it is for an endpoint. */
  route: string | undefined;
  requestId: string;
  clientAddress: string;
}

/** The trace of one HTTP request: its server span, and the spans of the work done for it. */
export interface RequestTrace {
  /** The trace it is recorded in (the caller's, or one the server began); none while off. */
  readonly traceId: string | undefined;
  /** Admission counted the request, under `plan` (`free`…), and decided `outcome` (`allowed`…). */
  admitted(outcome: string, plan: string): void;
  /** The request fails on the server's side (a 5xx) because of `error`. */
  failed(error: unknown): void;
  /** Its response is finished, or its connection closed first. */
  ended(res: ServerResponse): void;
}

/**
 * A database call, as its span names it: the operation and the table, the query summary of
 * OpenTelemetry's database conventions (`SELECT pets`, `UPDATE pets`). Any statement kind.
 */
export interface DatabaseCall {
  readonly operation: string;
  readonly table: string;
}

export interface Tracing {
  /** Begins a request's trace, once its target is known: the server span, named by its route. */
  requestStarted(req: Request, request: TracedRequest): RequestTrace;
  /**
   * Makes the database call `send` for all of `requests` at once, recorded as `call` in every
   * one's trace, with how many requests shared it. Not an async function where nothing is
   * recorded: it would wrap each call's promise in one more.
   */
  databaseCall<T>(
    requests: readonly RequestTrace[],
    call: DatabaseCall,
    send: () => PromiseLike<T>,
  ): Promise<T>;
  /** Sends the Redis command `name` with `send` for `requests`, recorded as a database call is. */
  redisCommand<T>(
    requests: readonly RequestTrace[],
    name: string,
    send: () => Promise<T>,
  ): Promise<T>;
  /** Exports the spans still queued, giving up after `deadlineMs`. */
  shutdown(deadlineMs: number): Promise<void>;
}

/** A request's trace while tracing is off: nothing is recorded. */
export const NO_TRACE: RequestTrace = {
  traceId: undefined,
  admitted() {},
  failed() {},
  ended() {},
};

/** No traces: what the server runs with unless OpenTelemetry's variables ask for them. */
export const TRACING_OFF: Tracing = {
  requestStarted: () => NO_TRACE,
  databaseCall: (_requests, _call, send) => Promise.resolve(send()),
  redisCommand: (_requests, _name, send) => send(),
  shutdown: async () => {},
};

/** Where the server's dependencies are, for the spans of the calls made to them. */
export interface TracedDependencies {
  databaseUrl: string;
  redisUrl: string | undefined;
}
