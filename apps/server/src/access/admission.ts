import type { Request, RequestHandler } from 'express';
import { ApiError } from '../http/api-error.js';
import { ANONYMOUS_PLAN, ANONYMOUS_QUOTA, type PlanName, type Quota } from '../limits/plans.js';
import { rateLimitHeaders, retryAfterSeconds } from '../limits/rate-limit-headers.js';
import type { AdmissionOutcome, RateLimitStore } from '../limits/rate-limit-store.js';
import type { CallerKind } from '../operations/metrics.js';
import { type Caller, type CallerResolver, setCaller } from './caller.js';
import { clientSubject } from './client-address.js';

export interface AdmissionDeps {
  resolveCaller: CallerResolver;
  /** Requests outside the API operations (probes, documents) are counted per client IP. */
  isOutsideOperations: (req: Request) => boolean;
  /**
   * The health probes, which load balancers and orchestrators send every few seconds from one
   * address: never counted nor refused, and answered without waiting on a shared store.
   */
  isProbe: (req: Request) => boolean;
  store: RateLimitStore;
  /** Epoch milliseconds; injectable so tests can cross minutes and days without waiting. */
  now: () => number;
  /** IPv6 clients are counted per network of this prefix length. */
  ipv6PrefixLength: number;
  /** Told of every decision: under which plan, for which kind of caller. */
  onDecision: (outcome: AdmissionOutcome, plan: PlanName, caller: CallerKind) => void;
}

/** Whom a request is counted against, under which plan's quota. */
interface Subject {
  subject: string;
  quota: Quota;
  plan: PlanName;
  caller: CallerKind;
}

interface Verdict {
  headers: Record<string, string>;
  rejection?: ApiError;
}

const NO_KEY: Caller = { kind: 'anonymous', credential: 'missing' };

/** Rate limiting, the first check every request meets: per key when it carries a valid one, else per IP. */
export function createAdmission(deps: AdmissionDeps) {
  const { resolveCaller, isOutsideOperations, isProbe, store, now } = deps;
  const addressSubject = (ip: string) => clientSubject(ip, deps.ipv6PrefixLength);

  function subjectOf(caller: Caller, ip: string): Subject {
    return caller.kind === 'key'
      ? {
          subject: `key:${caller.key.id}`,
          quota: caller.key.quota,
          plan: caller.key.plan,
          caller: 'key',
        }
      : { subject: addressSubject(ip), quota: ANONYMOUS_QUOTA, plan: ANONYMOUS_PLAN, caller: 'ip' };
  }

  async function judge({ subject, quota, plan, caller }: Subject): Promise<Verdict> {
    const nowMs = now();
    const admission = await store.admit({ subject, quota, nowMs });
    deps.onDecision(admission.outcome, plan, caller);
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

  /** The IP's headers as this process sees them now: the probe is neither counted nor refused. */
  function admitProbe(ip: string): Record<string, string> {
    const nowMs = now();
    const request = { subject: addressSubject(ip), quota: ANONYMOUS_QUOTA, nowMs };
    return rateLimitHeaders(store.standing(request), ANONYMOUS_QUOTA, nowMs);
  }

  const middleware: RequestHandler = async (req, res, next) => {
    try {
      const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      if (isProbe(req)) {
        setCaller(res.locals, NO_KEY);
        res.set(admitProbe(ip));
        return next();
      }
      // Probes and documents are counted per IP whatever they carry, so they never look a key up.
      const caller = isOutsideOperations(req) ? NO_KEY : await resolveCaller(req);
      setCaller(res.locals, caller);
      if (caller.kind === 'unresolved') {
        // The key could not be checked (the database is away): that is no fault of the caller's,
        // so nothing is counted against the key or the IP, and the request fails as a 503.
        res.set(await headersFor(addressSubject(ip), ANONYMOUS_QUOTA));
        return next(caller.error);
      }
      const verdict = await judge(subjectOf(caller, ip));
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
