import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.js';
import { contextOf, type RequestContext } from './request-context.js';
import { traceIdOf } from './trace-context.js';

/**
 * What a request's log line says of it. Chosen field by field: headers, and with them the API
 * key in `Authorization`, never reach the logs.
 */
function requestFields(req: Request, context: RequestContext) {
  return {
    id: context.requestId,
    method: req.method,
    url: req.originalUrl,
    remoteAddress: context.clientAddress,
  };
}

export interface RequestLogDeps {
  logger: Logger;
  /** Told of each response finished (or its connection closed first), and how long it took. */
  onFinished: (context: RequestContext, res: Response, elapsedMs: number) => void;
}

/**
 * One log line, one metrics observation and the end of its trace per request, made when its
 * response is finished (or the connection closed before that). The line carries the request id
 * that `X-Request-Id` also gives the caller, and the id of the trace the request is recorded in
 * (or, while tracing is off, that of a valid `traceparent`). Written by hand rather than with
 * pino-http, which makes a child logger and serializes the request for every request
 * (docs/performance.md, "What each change bought").
 */
export function requestLog({ logger, onFinished }: RequestLogDeps): RequestHandler {
  return (req, res, next) => {
    const context = contextOf(res);
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      const elapsedMs = performance.now() - context.startedAt;
      onFinished(context, res, elapsedMs);
      context.trace.ended(res);
      if (!logger.isLevelEnabled('info')) return;
      const traceId = context.trace.traceId ?? traceIdOf(req);
      logger.info(
        {
          req: requestFields(req, context),
          res: { statusCode: res.statusCode },
          responseTime: Math.round(elapsedMs),
          ...(traceId ? { traceId } : {}),
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request completed',
      );
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
