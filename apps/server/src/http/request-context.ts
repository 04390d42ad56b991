import type { Request, RequestHandler, Response } from 'express';
import type { Caller } from '../access/caller.js';
import type { RequestTrace, Tracing } from '../tracing/tracing.js';
import { requestIdFor } from './request-id.js';
import { labelOf, type RequestTarget, type RouteResolver } from './routes.js';

/**
 * What the pipeline knows of a request, built once by its first stage: every later stage reads
 * it instead of matching the path or reading headers again.
 */
export interface RequestContext {
  /** What the request is for: an operation, a probe, a document, a preflight, or nothing. */
  readonly target: RequestTarget;
  /** As `X-Request-Id` gives it to the caller and its log line records it. */
  readonly requestId: string;
  /** The client's address: the connection's peer, or what trusted proxies say it is. */
  readonly clientAddress: string;
  /** When the request reached the app (`performance.now()`). */
  readonly startedAt: number;
  /** Its trace: the server span, and what the work done for it records there. */
  readonly trace: RequestTrace;
  /** Who sent it, as the caller stage resolved its API key; nobody until then. */
  caller: Caller;
  /** The turn batch that admitted it (batching/turn-batch.ts); 0 until then. */
  turn: number;
}

declare global {
  namespace Express {
    interface Locals {
      context: RequestContext;
    }
  }
}

/** Nobody: a request without a key, and every request before the caller stage has looked. */
export const NO_CALLER: Caller = { kind: 'anonymous', credential: 'missing' };

export function contextOf(res: Response): RequestContext {
  return res.locals.context;
}

export interface RequestContextDeps {
  resolveTarget: RouteResolver;
  /** Whether a request is a CORS preflight this server answers (an allowed origin's). */
  isPreflight: (req: Request) => boolean;
  tracing: Tracing;
}

/**
 * The first stage: resolves the request's target, id and client address, once, and begins its
 * trace, which the stages after it take from the context to record the calls they make for it.
 */
export function requestContext({
  resolveTarget,
  isPreflight,
  tracing,
}: RequestContextDeps): RequestHandler {
  return (req, res, next) => {
    const startedAt = performance.now();
    const requestId = requestIdFor(req);
    res.setHeader('X-Request-Id', requestId);
    const target: RequestTarget = isPreflight(req)
      ? { kind: 'preflight' }
      : resolveTarget(req.method, req.path);
    const clientAddress = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const trace = tracing.requestStarted(req, {
      label: labelOf(target),
      route: 'endpoint' in target ? target.endpoint.template : undefined,
      requestId,
      clientAddress,
    });
    res.locals.context = {
      target,
      requestId,
      clientAddress,
      startedAt,
      trace,
      caller: NO_CALLER,
      turn: 0,
    };
    next();
  };
}
