import { ERROR_MESSAGES } from '@animal-store/contract';
import { rateLimitHeaders, retryAfterSeconds } from '@animal-store/contract/rules';
import type { NextFunction, Response } from 'express';
import type { Clock } from '../clock.js';
import { ApiError } from '../http/api-error.js';
import { contextOf, type RequestContext } from '../http/request-context.js';
import { ANONYMOUS_PLAN, ANONYMOUS_QUOTA, type PlanName, type Quota } from '../limits/plans.js';
import type {
  Admission,
  AdmissionOutcome,
  AdmissionRequest,
  RateLimitStore,
} from '../limits/rate-limit-store.js';
import type { CallerKind } from '../operations/metrics.js';
import type { RequestTrace } from '../tracing/tracing.js';
import type { Caller } from './caller.js';
import { clientSubject } from './client-address.js';

export interface AdmissionDeps {
  store: RateLimitStore;
  /** Epoch milliseconds, which the windows are read on; a test's own crosses minutes and days at once. */
  clock: Clock;
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

/** A request to decide, its caller known (the caller stage, access/identification.ts). */
export interface AdmissionCandidate {
  res: Response;
  next: NextFunction;
}

/** A request to count, and its context. */
interface Waiting extends AdmissionCandidate {
  context: RequestContext;
}

function rejectionFor(admission: Admission, quota: Quota, nowMs: number): ApiError | undefined {
  if (admission.outcome === 'allowed') return undefined;
  const headers = { 'Retry-After': String(retryAfterSeconds(admission, quota, nowMs)) };
  return admission.outcome === 'banned'
    ? new ApiError(ERROR_MESSAGES.banned, { headers })
    : new ApiError(ERROR_MESSAGES.rateLimited, { headers });
}

/**
 * Rate limiting, the first check every request meets: per key when it carries a valid one, else
 * per IP. It decides many requests at once, in one call to the store: the pipeline hands it the
 * requests of one turn together (batching/turn-batch.ts).
 */
export function createAdmission(deps: AdmissionDeps) {
  const { store, clock } = deps;
  const now = () => clock.now();
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

  /** An IP's headers as this process sees them now, neither counting nor refusing. */
  function standingHeaders(ip: string): Record<string, string> {
    const nowMs = now();
    const request = { subject: addressSubject(ip), quota: ANONYMOUS_QUOTA, nowMs };
    return rateLimitHeaders(store.standing(request), ANONYMOUS_QUOTA, nowMs);
  }

  /** A subject's headers from the store, neither counting the request nor holding it against a ban. */
  async function peekedHeaders(
    subject: string,
    quota: Quota,
    trace?: RequestTrace,
  ): Promise<Record<string, string>> {
    const nowMs = now();
    return rateLimitHeaders(await store.peek({ subject, quota, nowMs, trace }), quota, nowMs);
  }

  /**
   * The key could not be checked (the database is away): that is no fault of the caller's, so
   * nothing is counted against the key or the IP, and the request fails as a 503.
   */
  async function unresolved({ context, res, next }: Waiting) {
    const { caller } = context;
    try {
      const subject = addressSubject(context.clientAddress);
      res.set(await peekedHeaders(subject, ANONYMOUS_QUOTA, context.trace));
    } finally {
      next(caller.kind === 'unresolved' ? caller.error : undefined);
    }
  }

  /** Decides `batch` in one call to the store, then lets each request go on. */
  async function admitTogether(batch: Waiting[]) {
    const counted = batch.filter(({ context }) => context.caller.kind !== 'unresolved');
    for (const waiting of batch) {
      if (waiting.context.caller.kind === 'unresolved') void unresolved(waiting);
    }
    if (counted.length === 0) return;
    const nowMs = now();
    const subjects = counted.map(({ context }) => subjectOf(context.caller, context.clientAddress));
    let admissions: Admission[];
    const requests = counted.map(({ context }, index): AdmissionRequest => {
      const { subject, quota } = subjects[index] as Subject;
      return { subject, quota, nowMs, trace: context.trace };
    });
    try {
      admissions = await store.admit(requests);
    } catch (error) {
      for (const { next } of counted) next(error);
      return;
    }
    counted.forEach(({ context, res, next }, index) => {
      const admission = admissions[index] as Admission;
      const { quota, plan, caller: callerKind } = subjects[index] as Subject;
      deps.onDecision(admission.outcome, plan, callerKind);
      context.trace.admitted(admission.outcome, plan);
      res.set(rateLimitHeaders(admission, quota, nowMs));
      next(rejectionFor(admission, quota, nowMs));
    });
  }

  /**
   * Decides `candidates` together: probes and preflights are never counted nor refused, and
   * never wait on a shared store; every other request is counted against its caller.
   */
  function decide(candidates: readonly AdmissionCandidate[]): void {
    const counted: Waiting[] = [];
    for (const { res, next } of candidates) {
      const context = contextOf(res);
      const { kind } = context.target;
      if (kind === 'probe' || kind === 'preflight') {
        res.set(standingHeaders(context.clientAddress));
        next();
      } else {
        counted.push({ context, res, next });
      }
    }
    if (counted.length > 0) void admitTogether(counted);
  }

  /**
   * The rate-limit headers of an IP, for a request the HTTP parser refused. Such a request is
   * answered 400/431 whatever the limits say, so it is neither counted nor held against a ban.
   */
  const headersForRefusedRequest = (ip: string) =>
    peekedHeaders(addressSubject(ip), ANONYMOUS_QUOTA);

  return { decide, standingHeaders, headersForRefusedRequest };
}

export type AdmissionStage = ReturnType<typeof createAdmission>;
