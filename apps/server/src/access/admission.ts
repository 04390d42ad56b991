import type { RequestHandler } from 'express';
import { ApiError } from '../http/api-error.js';
import { ANONYMOUS_QUOTA, type Quota } from '../limits/plans.js';
import { rateLimitHeaders, retryAfterSeconds } from '../limits/rate-limit-headers.js';
import type { RateLimitStore } from '../limits/rate-limit-store.js';
import { type Caller, type CallerResolver, setCaller } from './caller.js';

export interface AdmissionDeps {
  resolveCaller: CallerResolver;
  store: RateLimitStore;
  /** Epoch milliseconds; injectable so tests can cross minutes and days without waiting. */
  now: () => number;
}

interface Verdict {
  headers: Record<string, string>;
  rejection?: ApiError;
}

function subjectOf(caller: Caller, ip: string): { subject: string; quota: Quota } {
  return caller.kind === 'key'
    ? { subject: `key:${caller.key.id}`, quota: caller.key.quota }
    : { subject: `ip:${ip}`, quota: ANONYMOUS_QUOTA };
}

/** Rate limiting, the first check every request meets: per key when it carries a valid one, else per IP. */
export function createAdmission({ resolveCaller, store, now }: AdmissionDeps) {
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
      const caller = await resolveCaller(req);
      setCaller(res.locals, caller);
      const { subject, quota } = subjectOf(caller, req.ip ?? req.socket.remoteAddress ?? 'unknown');
      const verdict = await judge(subject, quota);
      res.set(verdict.headers);
      next(verdict.rejection);
    } catch (error) {
      next(error);
    }
  };

  /** Counts a request the HTTP parser refused against its IP, and returns that IP's headers. */
  async function headersForRefusedRequest(ip: string): Promise<Record<string, string>> {
    return (await judge(`ip:${ip}`, ANONYMOUS_QUOTA)).headers;
  }

  return { middleware, headersForRefusedRequest };
}

export type Admission = ReturnType<typeof createAdmission>;
