import type { Express } from 'express';

/**
 * What `res.send` answers (operations, probes, documents) carries no validator (no ETag, no
 * Last-Modified) and may not be stored (`no-store`), so no request for it is fresh: Express would
 * otherwise answer `If-None-Match: *` with an empty 304, which no operation declares. (The static
 * assets of /docs answer conditional requests themselves.)
 */
export function neverFresh(app: Express): void {
  Object.defineProperty(app.request, 'fresh', { get: () => false });
}
