import type { Request, RequestHandler } from 'express';
import { ApiError } from '../http/api-error.js';
import { ANONYMOUS_QUOTA, type Quota } from '../limits/plans.js';
import { rateLimitHeaders, retryAfterSeconds } from '../limits/rate-limit-headers.js';
import type { RateLimitStore } from '../limits/rate-limit-store.js';
import { type Caller, type CallerResolver, setCaller } from './caller.js';
import { clientSubject } from './client-address.js';

export interface AdmissionDeps {
  resolveCaller: CallerResolver;
  /** Requests outside the API operations (probes, documents) are counted per client IP. */
  isOutsideOperations: (req: Request) => boolean;
  store: RateLimitStore;
  /** Epoch milliseconds; injectable so tests can cross minutes and days without waiting. */
  now: () => number;
  /** IPv6 clients are counted per network of this prefix length. */
  ipv6PrefixLength: number;
}

interface Verdict {
  headers: Record<string, string>;
  rejection?: ApiError;
}

const NO_KEY: Caller = { kind: 'anonymous', credential: 'missing' };

/** Rate limiting, the first check every request meets: per key when it carries a valid one, else per IP. */
export function createAdmission(deps: AdmissionDeps) {
  const { resolveCaller, isOutsideOperations, store, now } = deps;
  const addressSubject = (ip: string) => clientSubject(ip, deps.ipv6PrefixLength);

  function subjectOf(caller: Caller, ip: string): { subject: string; quota: Quota } {
    return caller.kind === 'key'
      ? { subject: `key:${caller.key.id}`, quota: caller.key.quota }
      : { subject: addressSubject(ip), quota: ANONYMOUS_QUOTA };
  }

  async function judge(subject: string, quota: Quota): Promise<Verdict> {
    const nowMs = now();
    const admission = await store.admit({ subject, quota, nowMs });
    const headers = rateLimitHeaders(admission, quota, nowMs);
    if (admission.outcome === 'allowed') return { headers };
    const retryAfter = { 'Retry-After': String(retryAfterSeconds(admission, quota, nowMs)) };
    const rejection =
      admission.outcome === 'banned'
        ? new ApiError(
            'temporarily_banned',
            'Too many requests over the limit: this client is banned for a while.',
            {
              headers: retryAfter,
            },
          )
        : new ApiError(
            'rate_limited',
            'Rate limit exceeded. Wait as Retry-After says, then back off exponentially.',
            {
              headers: retryAfter,
            },
          );
    return { headers, rejection };
  }

  const middleware: RequestHandler = async (req, res, next) => {
    try {
      const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      // Probes and documents are counted per IP whatever they carry, so they never look a key up.
      const caller = isOutsideOperations(req) ? NO_KEY : await resolveCaller(req);
      setCaller(res.locals, caller);
      if (caller.kind === 'unresolved') {
        // The key could not be checked (the database is away): that is no fault of the caller's,
        // so nothing is counted against the key or the IP, and the request fails as a 503.
        res.set(await headersFor(addressSubject(ip), ANONYMOUS_QUOTA));
        return next(caller.error);
      }
      const { subject, quota } = subjectOf(caller, ip);
      const verdict = await judge(subject, quota);
      res.set(verdict.headers);
      next(verdict.rejection);
    } catch (error) {
      next(error);
    }
  };

  /** A subject's rate-limit headers, neither counting the request nor holding it against a ban. */
  async function headersFor(subject: string, quota: Quota): Promise<Record<string, string>> {
    const nowMs = now();
    return rateLimitHeaders(await store.peek({ subject, quota, nowMs }), quota, nowMs);
  }

  /**
   * The rate-limit headers of an IP, for a request the HTTP parser refused. Such a request is
   * answered 400/431 whatever the limits say, so it is neither counted nor held against a ban.
   */
  const headersForRefusedRequest = (ip: string) => headersFor(addressSubject(ip), ANONYMOUS_QUOTA);

  return { middleware, headersForRefusedRequest };
}

export type Admission = ReturnType<typeof createAdmission>;
