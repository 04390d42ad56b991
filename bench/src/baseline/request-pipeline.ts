import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PetOperations } from './pet-operations.js';
import {
  hashSecret,
  type KeyRow,
  type MaybePromise,
  type PetStore,
  whenReady,
} from './pet-store.js';
import type { RateLimits } from './rate-limits.js';
import type { createRequestLog } from './request-log.js';
import { ClientError, sendError, sendJson } from './responses.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:]{1,128}$/;
const BEARER = /^bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;
const REALM = 'Bearer realm="animal-store"';

/** Requests without a valid key are held to the Free plan's numbers, per client IP. */
const ANONYMOUS_QUOTA = { perMinute: 60, perDay: 1_000 };

/** getPet is deprecated: every answer on its path says so, as the server's do. */
const DEPRECATION_HEADERS = {
  Deprecation: '@1735689600',
  Sunset: new Date('2030-12-05T00:00:00Z').toUTCString(),
  Link: '</v1/pets>; rel="successor-version"',
};

type Route = 'pets' | 'pet' | 'readyz' | 'healthz';

const ALLOWED_METHODS: Record<Route, string[]> = {
  pets: ['GET', 'HEAD', 'POST'],
  pet: ['GET', 'HEAD'],
  readyz: ['GET', 'HEAD'],
  healthz: ['GET', 'HEAD'],
};

const PET_PATH = /^\/v1\/pets\/([^/]+)$/;

function routeOf(path: string): { route: Route; segment?: string } | undefined {
  if (path === '/v1/pets') return { route: 'pets' };
  if (path === '/readyz') return { route: 'readyz' };
  if (path === '/healthz') return { route: 'healthz' };
  const segment = PET_PATH.exec(path)?.[1];
  return segment === undefined ? undefined : { route: 'pet', segment };
}

type Caller = KeyRow | 'invalid' | undefined;

/** A valid key's row, `invalid` for a credential that is not one, undefined for none sent. */
function callerOf(req: IncomingMessage, db: PetStore): MaybePromise<Caller> {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return undefined;
  const secret = BEARER.exec(header)?.[1];
  if (!secret) return 'invalid';
  return whenReady(db.findKey(hashSecret(secret)), (key): Caller => key ?? 'invalid');
}

export interface PipelineDeps {
  db: PetStore;
  operations: PetOperations;
  admit: RateLimits;
  log: ReturnType<typeof createRequestLog>;
}

/**
 * The server's checks in the server's order (rate limit, routing, authentication, validation),
 * written out by hand instead of composed from a framework's middleware.
 */
export function createRequestPipeline({ db, operations, admit, log }: PipelineDeps) {
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const query = queryStart === -1 ? '' : url.slice(queryStart + 1);
    const method = req.method ?? 'GET';
    const match = routeOf(path);
    if (match?.route === 'pet') {
      for (const [name, value] of Object.entries(DEPRECATION_HEADERS)) res.setHeader(name, value);
    }
    const allowed = match ? ALLOWED_METHODS[match.route] : [];
    const site =
      (match?.route === 'readyz' || match?.route === 'healthz') && allowed.includes(method);

    // Probes are counted per IP whatever they carry, so they never look a key up.
    // Awaited only when the store or the counters answer later (PostgreSQL, Redis): SQLite's
    // requests go through in the turn that read them.
    const found = site ? undefined : callerOf(req, db);
    const caller = found instanceof Promise ? await found : found;
    const key = typeof caller === 'object' ? caller : undefined;
    const decided = admit(
      key ? `key:${key.id}` : `ip:${req.socket.remoteAddress}`,
      key ?? ANONYMOUS_QUOTA,
      Date.now(),
    );
    const verdict = decided instanceof Promise ? await decided : decided;
    for (const [name, value] of Object.entries(verdict.headers)) res.setHeader(name, value);
    if (!verdict.allowed) {
      throw new ClientError(
        'rate_limited',
        'Rate limit exceeded. Wait as Retry-After says, then back off exponentially.',
      );
    }
    if (!match) throw new ClientError('not_found', `No route matches ${path}.`);
    if (!allowed.includes(method)) {
      throw new ClientError(
        'method_not_allowed',
        `${method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
        undefined,
        { Allow: allowed.join(', ') },
      );
    }
    if (match.route === 'healthz') return sendJson(res, 200, { status: 'ok' });
    if (match.route === 'readyz') {
      return whenReady(db.ping(), () => sendJson(res, 200, { status: 'ok' }));
    }
    if (!key) {
      const sent = caller === 'invalid';
      throw new ClientError(
        'unauthorized',
        sent
          ? 'The API key is not valid: send Authorization: Bearer <API key> with an active key.'
          : 'An API key is required: send Authorization: Bearer <API key>.',
        undefined,
        { 'WWW-Authenticate': sent ? `${REALM}, error="invalid_token"` : REALM },
      );
    }
    if (match.route === 'pet') return operations.getPet(res, match.segment ?? '');
    if (method === 'POST') return operations.createPet(req, res, key.id);
    return operations.listPets(req, res, query);
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    const startedAt = Date.now();
    const incoming = req.headers['x-request-id'];
    const id =
      typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    res.on('finish', () =>
      log({
        id,
        method: req.method,
        url: req.url,
        remoteAddress: req.socket.remoteAddress,
        statusCode: res.statusCode,
        startedAt,
      }),
    );
    handle(req, res).catch((error: unknown) => {
      if (!(error instanceof ClientError)) console.error(error);
      if (res.headersSent) return;
      sendError(
        res,
        error instanceof ClientError
          ? error
          : new ClientError('internal_error', 'The server could not answer this request.'),
      );
    });
  };
}
