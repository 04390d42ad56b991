/**
 * A tiny stand-in for whatever serves the built app in production: files of the test build
 * (unknown paths fall back to `index.html`) and `/v1` proxied to the API server.
 */

import { once } from 'node:events';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEST_BUILD = fileURLToPath(new URL('../../test-build/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

export interface StaticServer {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startStaticServer(apiBaseUrl: string): Promise<StaticServer> {
  if (!existsSync(join(TEST_BUILD, 'index.html'))) {
    throw new Error(`${TEST_BUILD}index.html is missing: build @animal-store/web first`);
  }
  const api = new URL(apiBaseUrl);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) {
      const upstream = request(
        {
          hostname: api.hostname,
          port: api.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: api.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.writeHead(502).end();
      });
      req.pipe(upstream);
      return;
    }
    const relative = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '');
    let file = join(TEST_BUILD, relative);
    if (!file.startsWith(TEST_BUILD) || relative.split(sep).includes('..')) {
      res.writeHead(404).end();
      return;
    }
    if (!existsSync(file) || !statSync(file).isFile()) file = join(TEST_BUILD, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
