/**
 * The server's tracing on OpenTelemetry (the contract is tracing.ts): a server span per request,
 * a client span per database call and Redis command made for it, exported over OTLP/HTTP
 * in batches. Only start-tracing.ts imports this file, and only when the environment asks for
 * traces, so no OpenTelemetry module is loaded otherwise.
 *
 * The SDK reads the standard variables itself, as the specification says: the sampler
 * (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`) and span limits in BasicTracerProvider, the
 * queue and batches (`OTEL_BSP_*`) in BatchSpanProcessor, the endpoint, headers, timeout and
 * compression (`OTEL_EXPORTER_OTLP_*`) in the exporter, `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` in the environment resource detector. Only the protocol is read
 * here, to choose the exporter.
 *
 * The spans are made here from what the pipeline tells, not by auto-instrumentation: the
 * pipeline knows each request's route and operation, and the batching stage's shared work needs
 * recording in several traces at once, which no instrumentation of a library knows about. No
 * context manager is registered: every span is started with its parent given (tracing.ts says
 * why nothing is carried in an async context).
 */

import type { ServerResponse } from 'node:http';
import { databaseProvider } from '@animal-store/db';
import {
  type Attributes,
  type Context,
  type DiagLogger,
  DiagLogLevel,
  defaultTextMapGetter,
  diag,
  type HrTime,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import {
  millisToHrTime,
  setGlobalErrorHandler,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_EXCEPTION_STACKTRACE,
  ATTR_EXCEPTION_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PEER_ADDRESS,
  ATTR_NETWORK_PEER_PORT,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_URL_PATH,
  ATTR_URL_QUERY,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { Request } from 'express';
import { requestScheme } from '../http/request-head.js';
import type { Logger } from '../logger.js';
import type {
  DatabaseCall,
  RequestTrace,
  TracedDependencies,
  TracedRequest,
  Tracing,
} from './tracing.js';

/** `service.name` unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` says otherwise. */
const DEFAULT_SERVICE_NAME = 'animal-store';

/** Our own attributes, beside the semantic conventions' (docs/operations.md lists them). */
const ATTR_REQUEST_ID = 'animal_store.request_id';
const ATTR_OPERATION = 'animal_store.operation';
const ATTR_RATE_LIMIT_OUTCOME = 'animal_store.rate_limit.outcome';
const ATTR_RATE_LIMIT_PLAN = 'animal_store.rate_limit.plan';
/** How many requests one database call or Redis command served: the batching stage's sharing. */
const ATTR_BATCH_SIZE = 'animal_store.batch.size';

/** How often to say that spans could not be exported: once per outage, then once a minute. */
const EXPORT_FAILURE_LOG_INTERVAL_MS = 60_000;

/** The methods HTTP's semantic conventions name; any other is `_OTHER`. */
const KNOWN_METHODS = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'QUERY',
  'TRACE',
]);

/**
 * What an error says about itself, for an exception event: its type and the frames of its
 * stack, never its message. A driver's message can quote the values bound to a statement
 * (PostgreSQL's "invalid input syntax for type bigint: …" on its first line), which never leave
 * the server; the log line, found by the request id, has the whole error.
 */
function exceptionAttributes(error: unknown): Attributes {
  if (!(error instanceof Error)) return { [ATTR_EXCEPTION_TYPE]: typeof error };
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  return {
    [ATTR_EXCEPTION_TYPE]: error.constructor.name,
    [ATTR_EXCEPTION_STACKTRACE]: frames.join('\n'),
  };
}

/** The kind of a dependency's fault: the driver's own code or kind when it names one. */
function errorTypeOf(error: unknown): string {
  for (let current = error, depth = 0; current && depth < 4; depth += 1) {
    if (typeof current !== 'object') break;
    const { kind, code, cause } = current as Record<string, unknown>;
    if (typeof kind === 'string') return kind;
    if (typeof code === 'string') return code;
    current = cause;
  }
  return error instanceof Error ? error.constructor.name : 'unknown';
}

function markFailed(span: Span, error: unknown) {
  span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
  span.addEvent('exception', exceptionAttributes(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** A sampled request: its server span, the parent of the spans of the calls made for it. */
class RecordedRequest implements RequestTrace {
  readonly span: Span;
  readonly context: Context;

  constructor(span: Span) {
    this.span = span;
    this.context = trace.setSpan(ROOT_CONTEXT, span);
  }

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  admitted(outcome: string, plan: string): void {
    this.span.setAttributes({ [ATTR_RATE_LIMIT_OUTCOME]: outcome, [ATTR_RATE_LIMIT_PLAN]: plan });
  }

  failed(error: unknown): void {
    // Failed whatever status it ends with: once its head is sent, the response is cut off.
    this.span.addEvent('exception', exceptionAttributes(error));
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }

  ended(res: ServerResponse): void {
    if (!res.writableFinished) {
      // The connection closed before the response was sent whole (the client gave up, or the
      // server cut it off): its status code, if any, never reached the client in full.
      this.span.setAttribute(ATTR_ERROR_TYPE, 'response_incomplete');
      if (res.headersSent) this.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      this.span.end();
      return;
    }
    const status = res.statusCode;
    this.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    // A 4xx is the client's doing: only the server's own failures mark a server span failed.
    if (status >= 500) {
      this.span.setAttribute(ATTR_ERROR_TYPE, String(status));
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}

/** A request the sampler left out: nothing is recorded, but its trace id goes in its log line. */
class UnrecordedRequest implements RequestTrace {
  readonly traceId: string;

  constructor(traceId: string) {
    this.traceId = traceId;
  }

  admitted(): void {}
  failed(): void {}
  ended(): void {}
}

/** HTTP's semantic conventions' method: as sent when they name it, else `_OTHER`. */
function methodOf(req: Request): string {
  return KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
}

/** The server span's attributes, by the stable HTTP semantic conventions, and ours. */
function serverSpanAttributes(
  req: Request,
  { label, route, requestId, clientAddress }: TracedRequest,
) {
  const method = methodOf(req);
  const queryAt = req.url.indexOf('?');
  const attributes: Attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: method,
    [ATTR_URL_SCHEME]: requestScheme(req),
    [ATTR_URL_PATH]: req.path,
    [ATTR_CLIENT_ADDRESS]: clientAddress,
    [ATTR_NETWORK_PEER_ADDRESS]: req.socket.remoteAddress,
    [ATTR_NETWORK_PEER_PORT]: req.socket.remotePort,
    [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
    [ATTR_SERVER_PORT]: req.socket.localPort,
    [ATTR_OPERATION]: label,
    [ATTR_REQUEST_ID]: requestId,
  };
  if (method === '_OTHER') attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = req.method;
  if (route !== undefined) attributes[ATTR_HTTP_ROUTE] = route;
  if (queryAt !== -1) attributes[ATTR_URL_QUERY] = req.url.slice(queryAt + 1);
  if (req.hostname) attributes[ATTR_SERVER_ADDRESS] = req.hostname;
  const userAgent = req.headers['user-agent'];
  if (userAgent) attributes[ATTR_USER_AGENT_ORIGINAL] = userAgent;
  return attributes;
}

/** The name of a server span: method and route template, or the method alone without a route. */
function serverSpanName(req: Request, { route }: TracedRequest): string {
  const method = methodOf(req);
  const shown = method === '_OTHER' ? 'HTTP' : method;
  return route === undefined ? shown : `${shown} ${route}`;
}

/** What every span of a call to one dependency says of where it went. */
function databaseAttributes(databaseUrl: string): Attributes {
  const system = databaseProvider(databaseUrl);
  if (system === 'sqlite') return { [ATTR_DB_SYSTEM_NAME]: 'sqlite' };
  const url = new URL(databaseUrl);
  return {
    [ATTR_DB_SYSTEM_NAME]: 'postgresql',
    [ATTR_SERVER_ADDRESS]: url.hostname,
    [ATTR_SERVER_PORT]: Number(url.port || 5432),
    [ATTR_DB_NAMESPACE]: decodeURIComponent(url.pathname.slice(1)),
  };
}

/** A call's span: its name and attributes, which the call alone decides. */
interface CallDescription {
  name: string;
  attributes: Attributes;
}

/**
 * Span descriptions by name, each worked out once: the names are the code's constants (a
 * handful of database calls, two Redis commands), so the map stays as small as they are few.
 */
function descriptionsByName() {
  const described = new Map<string, CallDescription>();
  return (name: string, attributesOf: () => Attributes): CallDescription => {
    let description = described.get(name);
    if (!description) {
      description = { name, attributes: attributesOf() };
      described.set(name, description);
    }
    return description;
  };
}

function redisAttributes(redisUrl: string | undefined): Attributes {
  if (!redisUrl) return { [ATTR_DB_SYSTEM_NAME]: 'redis' };
  const url = new URL(redisUrl);
  return {
    [ATTR_DB_SYSTEM_NAME]: 'redis',
    [ATTR_SERVER_ADDRESS]: url.hostname,
    [ATTR_SERVER_PORT]: Number(url.port || 6379),
  };
}

/**
 * `performance.now()` times on the wall clock, as the SDK dates a span it times itself, with
 * one reading of the clock for all the copies of a call, so that they share their times.
 */
function onWallClock(): (time: number) => HrTime {
  const offset = Date.now() - (performance.timeOrigin + performance.now());
  return (time) => millisToHrTime(performance.timeOrigin + time + offset);
}

/**
 * A call's span in the trace of each sampled request it served, all with the same times. The
 * attributes are set on the started span, not passed to `startSpan`, which would check them
 * twice (for the sampler, then for the span) though a child of a sampled span is always sampled.
 */
function recordCall(
  tracer: Tracer,
  { name, attributes }: CallDescription,
  served: { recorded: readonly RecordedRequest[]; size: number },
  timing: { startedAt: number; endedAt: number; error?: unknown },
) {
  const dated = onWallClock();
  const startTime = dated(timing.startedAt);
  const endTime = dated(timing.endedAt);
  for (const request of served.recorded) {
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime }, request.context);
    span.setAttributes(attributes);
    span.setAttribute(ATTR_BATCH_SIZE, served.size);
    if (timing.error !== undefined) markFailed(span, timing.error);
    span.end(endTime);
  }
}

/**
 * Makes a call for `requests`, timed and recorded in the trace of each sampled one; made as is
 * when none is sampled, as most are under a sampling ratio.
 */
function tracedCall<T>(
  tracer: Tracer,
  requests: readonly RequestTrace[],
  describe: () => CallDescription,
  send: () => PromiseLike<T>,
): Promise<T> {
  const recorded = requests.filter((request) => request instanceof RecordedRequest);
  if (recorded.length === 0) return Promise.resolve(send());
  const served = { recorded, size: requests.length };
  const startedAt = performance.now();
  return Promise.resolve(send()).then(
    (reply) => {
      recordCall(tracer, describe(), served, { startedAt, endedAt: performance.now() });
      return reply;
    },
    (error: unknown) => {
      recordCall(tracer, describe(), served, { startedAt, endedAt: performance.now(), error });
      throw error;
    },
  );
}

/** OpenTelemetry's own warnings (a bad variable, spans dropped from a full queue) in our log. */
function diagnosticsLogger(logger: Logger): DiagLogger {
  const log = (level: 'error' | 'warn') => (message: string) =>
    logger[level]({ component: 'opentelemetry' }, message);
  return {
    error: log('error'),
    warn: log('warn'),
    info: () => {},
    debug: () => {},
    verbose: () => {},
  };
}

/**
 * Failed exports, reported once per outage and then once a minute with how many failed: a
 * collector that is away costs spans (the queue is bounded), never a log line per batch.
 */
function exportFailureReporter(logger: Logger) {
  let loggedAtMs: number | undefined;
  let unreported = 0;
  return (error: unknown) => {
    unreported += 1;
    const nowMs = Date.now();
    if (loggedAtMs !== undefined && nowMs - loggedAtMs < EXPORT_FAILURE_LOG_INTERVAL_MS) return;
    logger.warn(
      { err: error, failedExports: unreported },
      'spans could not be exported: the trace collector is unreachable or refused them',
    );
    loggedAtMs = nowMs;
    unreported = 0;
  };
}

/** OTLP over HTTP, in protobuf unless `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL` says `http/json`. */
async function otlpExporter(logger: Logger): Promise<SpanExporter> {
  const protocol = (
    process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  if (protocol !== 'http/protobuf') {
    // As the specification asks of a value it does not support: warn, and use the default.
    logger.warn({ protocol }, 'OTLP protocol not supported: exporting traces with http/protobuf');
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter();
}

/** The tracing of tracing.ts on OpenTelemetry's SDK, configured by the standard variables. */
export async function openTelemetryTracing(
  logger: Logger,
  dependencies: TracedDependencies,
): Promise<Tracing> {
  const reportExportFailure = exportFailureReporter(logger);
  diag.setLogger(diagnosticsLogger(logger), { logLevel: DiagLogLevel.WARN });
  setGlobalErrorHandler(reportExportFailure);

  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(await otlpExporter(logger))],
  });
  const tracer = provider.getTracer('@animal-store/server');
  const propagator = new W3CTraceContextPropagator();
  const database = databaseAttributes(dependencies.databaseUrl);
  const redis = redisAttributes(dependencies.redisUrl);

  const described = descriptionsByName();
  const describeDatabaseCall = ({ operation, table }: DatabaseCall) => {
    const summary = `${operation} ${table}`;
    return described(summary, () => ({
      ...database,
      [ATTR_DB_OPERATION_NAME]: operation,
      [ATTR_DB_COLLECTION_NAME]: table,
      [ATTR_DB_QUERY_SUMMARY]: summary,
    }));
  };
  const describeRedisCommand = (name: string) =>
    described(name, () => ({ ...redis, [ATTR_DB_OPERATION_NAME]: name }));

  return {
    requestStarted(req, request) {
      const parent =
        req.headers.traceparent === undefined
          ? ROOT_CONTEXT
          : propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
      const span = tracer.startSpan(
        serverSpanName(req, request),
        { kind: SpanKind.SERVER },
        parent,
      );
      // Attributes only for what is recorded: most requests are not, under a sampling ratio.
      if (!span.isRecording()) return new UnrecordedRequest(span.spanContext().traceId);
      span.setAttributes(serverSpanAttributes(req, request));
      return new RecordedRequest(span);
    },

    databaseCall(requests, call, send) {
      return tracedCall(tracer, requests, () => describeDatabaseCall(call), send);
    },

    redisCommand(requests, name, send) {
      return tracedCall(tracer, requests, () => describeRedisCommand(name), send);
    },

    async shutdown(deadlineMs) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
      });
      // What cannot be exported now is lost with the process: said once, as any failed export.
      const flushed = provider.shutdown().catch(reportExportFailure);
      await Promise.race([flushed, deadline]);
      clearTimeout(timer);
    },
  };
}
