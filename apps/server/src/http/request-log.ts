import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';
import { requestIdFor } from './request-id.js';

/**
 * What a request's log line says of it. Chosen field by field rather than serializing the whole
 * request: headers, and with them the API key in `Authorization`, never reach the logs, and
 * the line stays cheap to build at thousands of requests a second.
 */
function requestFields(req: IncomingMessage & { id?: unknown }) {
  return { id: req.id, method: req.method, url: req.url, remoteAddress: req.socket.remoteAddress };
}

function responseFields(res: ServerResponse) {
  return { statusCode: res.statusCode };
}

/** One log line per request, carrying the request id that `X-Request-Id` also gives the caller. */
export function requestLog(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = requestIdFor(req);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    wrapSerializers: false,
    serializers: { req: requestFields, res: responseFields },
  });
}
