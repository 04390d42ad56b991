import { hostname } from 'node:os';

const HOST = hostname();

interface LoggedRequest {
  id: string;
  method: string | undefined;
  url: string | undefined;
  remoteAddress: string | undefined;
  statusCode: number;
  startedAt: number;
}

/**
 * One JSON line per request on stdout, with the fields the server's pino-http line carries.
 * Lines written in one turn of the event loop leave in one write, as pino's asynchronous
 * destination batches them.
 */
export function createRequestLog(output: NodeJS.WritableStream = process.stdout) {
  let pending: string[] = [];
  const flush = () => {
    const lines = pending;
    pending = [];
    output.write(lines.join(''));
  };

  return function logRequest(request: LoggedRequest): void {
    const now = Date.now();
    const line = JSON.stringify({
      level: 30,
      time: now,
      pid: process.pid,
      hostname: HOST,
      req: {
        id: request.id,
        method: request.method,
        url: request.url,
        remoteAddress: request.remoteAddress,
      },
      res: { statusCode: request.statusCode },
      responseTime: now - request.startedAt,
      msg: 'request completed',
    });
    if (pending.length === 0) setImmediate(flush);
    pending.push(`${line}\n`);
  };
}
