/**
 * Tracing: what the server tells a tracer, and the one switch that decides whether there is one
 * (docs/operations.md, "Tracing", says what each span means).
 *
 * The pipeline reports each request to a `RequestTrace` (its target, its admission, a failure,
 * its end) and the work done for it, database statements and Redis commands, to the `Tracing`
 * it was started from. Unless OpenTelemetry's standard variables ask for traces, that is
 * `TRACING_OFF`, whose every call does nothing, and no OpenTelemetry module is loaded: the
 * implementation (open-telemetry.ts) is imported by `startTracing` only once they do.
 *
 * What it relies on:
 * - Work done for a request runs in its async context. `RequestTrace.within` enters it, and
 *   whatever resumes several requests from one callback (the batching stage) resumes each
 *   through its own `within`, or the next one's statements would land in the first one's trace.
 * - Work shared by the requests of one turn (a DataLoader's statement, a Redis script call that
 *   decides a subject's requests together) runs in `onBehalfOf(those requests)`: it is recorded
 *   in each one's trace, with how many requests shared it, so no trace shows a request waiting
 *   alone for a statement it shared. Who asked is taken with `currentRequest()` when asking.
 */
import type { ServerResponse } from 'node:http';
import type { QueryEvent } from '@animal-store/db';
import type { Request } from 'express';
import type { RequestTarget } from '../http/routes.js';
import type { PlanName } from '../limits/plans.js';
import type { AdmissionOutcome } from '../limits/rate-limit-store.js';
import type { Logger } from '../logger.js';

/** What the pipeline knows of a request when its trace begins. */
export interface TracedRequest {
  target: RequestTarget;
  requestId: string;
  clientAddress: string;
}

/** The trace of one HTTP request: its server span, and the spans of the work done for it. */
export interface RequestTrace {
  /** The trace it is recorded in (the caller's, or one the server began); none while off. */
  readonly traceId: string | undefined;
  /** Runs `work` as this request's: the statements and Redis commands it makes land here. */
  within<T>(work: () => T): T;
  /** Admission counted the request, under `plan`, and decided `outcome`. */
  admitted(outcome: AdmissionOutcome, plan: PlanName): void;
  /** The request fails on the server's side (a 5xx) because of `error`. */
  failed(error: unknown): void;
  /** Its response is finished, or its connection closed first. */
  ended(res: ServerResponse): void;
}

export interface Tracing {
  /** Begins a request's trace, once its target is known: the server span, named by its route. */
  requestStarted(req: Request, request: TracedRequest): RequestTrace;
  /** The request whose work runs now: whom a load of a shared statement is asked for. */
  currentRequest(): RequestTrace;
  /**
   * Runs `work` for all of `requests` at once: each statement and Redis command it makes is
   * recorded in every one's trace, with how many requests shared it. What `work` returns is
   * awaited at once, within: a Prisma query is sent only once awaited.
   */
  onBehalfOf<T>(requests: readonly RequestTrace[], work: () => PromiseLike<T>): Promise<T>;
  /**
   * The database client's statement observer (`onQuery`), told in the async context of the
   * call that sent the statement: recorded in the traces of the requests whose work runs.
   */
  statementFinished(event: QueryEvent): void;
  /**
   * Sends a Redis command with `send`, recorded in the traces of the requests whose work runs:
   * the current one, or those of `onBehalfOf`.
   */
  redisCommand<T>(name: string, send: () => Promise<T>): Promise<T>;
  /** Exports the spans still queued, giving up after `deadlineMs`. */
  shutdown(deadlineMs: number): Promise<void>;
}

/** A request's trace while tracing is off: nothing is recorded. */
export const NO_TRACE: RequestTrace = {
  traceId: undefined,
  within: (work) => work(),
  admitted() {},
  failed() {},
  ended() {},
};

/** No traces: what the server runs with unless OpenTelemetry's variables ask for them. */
export const TRACING_OFF: Tracing = {
  requestStarted: () => NO_TRACE,
  currentRequest: () => NO_TRACE,
  // Not an async function: it would wrap each shared statement's promise in one more.
  onBehalfOf: (_requests, work) => Promise.resolve(work()),
  statementFinished() {},
  redisCommand: (_name, send) => send(),
  shutdown: async () => {},
};

/** Where the server's dependencies are, for the spans of the calls made to them. */
export interface TracedDependencies {
  databaseUrl: string;
  redisUrl: string | undefined;
}

const isSet = (value: string | undefined) => value !== undefined && value.trim() !== '';

/**
 * Whether `env` asks for traces, as OpenTelemetry's specification reads its variables: an OTLP
 * endpoint for them (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` for
 * every signal), unless `OTEL_SDK_DISABLED` is true or `OTEL_TRACES_EXPORTER` is `none`.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * The server's tracing: OpenTelemetry's, exporting over OTLP, when the process's environment
 * asks for traces, else `TRACING_OFF`, with nothing of OpenTelemetry loaded.
 */
export async function startTracing(
  logger: Logger,
  dependencies: TracedDependencies,
): Promise<Tracing> {
  // The SDK reads the rest of the variables from the process's environment itself.
  if (!tracingRequested(process.env)) return TRACING_OFF;
  const { openTelemetryTracing } = await import('./open-telemetry.js');
  return openTelemetryTracing(logger, dependencies);
}
