/**
 * A deployment that breaks one rule: a proxy in front of the real server that changes what the
 * server is asked, or what it answers, in one way. Every other byte is the server's own.
 */
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Breakage {
  /** The path and query the server is asked, given the client's. */
  readonly target?: (target: string) => string;
  /** The headers the server is sent, given the client's (lower-case names). */
  readonly requestHeaders?: (headers: IncomingHttpHeaders, server: URL) => IncomingHttpHeaders;
  /** The headers of the answer, given the server's (lower-case names). */
  readonly answerHeaders?: (headers: IncomingHttpHeaders) => IncomingHttpHeaders;
}

export interface BreakingProxy {
  readonly baseUrl: string;
  close(): Promise<void>;
}

let proxiesStarted = 0;

/**
 * Each proxy forwards its clients as an address of its own (`X-Forwarded-For`, which a server
 * that trusts 127.0.0.1 believes: `TRUST_PROXY`), so that the requests without a key of each
 * broken deployment's run are counted apart, not all against one IP's 60 a minute.
 */
export async function startBreakingProxy(
  serverUrl: string,
  breakage: Breakage,
): Promise<BreakingProxy> {
  const server = new URL(serverUrl);
  proxiesStarted += 1;
  const clientAddress = `10.0.${Math.floor(proxiesStarted / 256)}.${proxiesStarted % 256}`;
  // Headers past the server's 16 KiB are the server's to refuse, not Node's parser's here.
  const proxy = createServer({ maxHeaderSize: 64 * 1024 }, (incoming, outgoing) => {
    const headers = breakage.requestHeaders?.({ ...incoming.headers }, server) ?? incoming.headers;
    const forwarded = request(
      {
        host: server.hostname,
        port: server.port,
        method: incoming.method,
        path: breakage.target?.(incoming.url ?? '/') ?? incoming.url,
        headers: { ...headers, 'x-forwarded-for': clientAddress },
      },
      (answer) => {
        const headers = breakage.answerHeaders?.({ ...answer.headers }) ?? answer.headers;
        outgoing.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

/** The answer without one of its headers. */
export const without =
  (name: string) =>
  (headers: IncomingHttpHeaders): IncomingHttpHeaders => {
    const { [name]: _dropped, ...kept } = headers;
    return kept;
  };
