import type { Request, RequestHandler } from 'express';
import { ApiError } from '../http/api-error.js';
import { contextOf, type RequestContext } from '../http/request-context.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';

/** Why a request was shed, as metrics label it. */
export type ShedReason = 'over_limit' | 'over_fair_share';

/** Past this share of the limit, a subject holding more than its fair share is shed first. */
const FAIR_SHARE_FROM = 0.8;

/** Seconds a shed client is told to wait: enough for the work in the server to drain. */
const RETRY_AFTER_SECONDS = 1;

/** Shedding is over once this long has passed without a request shed (ms). */
const QUIET_MS = 1_000;

const BUSY = 'The server is busy. Try again after the seconds Retry-After gives.';

/** An `Authorization` header longer than any bearer key of ours. */
const LONGEST_CREDENTIAL = 80;

/**
 * Whom a request is fair to: the credential it carries, as sent (looking it up would be
 * database work), else its client address. Each in the server is counted only while it is.
 */
function subjectOf(req: Request, context: RequestContext): string {
  const { authorization } = req.headers;
  return authorization !== undefined && authorization.length <= LONGEST_CREDENTIAL
    ? authorization
    : context.clientAddress;
}

export interface LoadSheddingDeps {
  limit: ConcurrencyLimit;
  /** An IP's rate-limit headers as they stand, neither counting nor refusing. */
  standingHeaders: (clientAddress: string) => Record<string, string>;
  /** Told of each request shed. */
  onShed: (reason: ShedReason) => void;
  /** Told when shedding begins, and when it ends with how many were shed meanwhile. */
  onShedding: (
    state: { shedding: true } | { shedding: false; shed: number; forMs: number },
  ) => void;
  /** Monotonic milliseconds. */
  now: () => number;
}

/**
 * Adaptive admission: the server keeps the requests in it within a limit learned from their
 * latency (concurrency-limit.ts), and answers the rest at once, `503 service_unavailable` with
 * `Retry-After`, before any database or Redis work: not even their key is looked up, and they are
 * counted against nobody's rate limit. Probes and CORS preflights are never shed nor counted.
 * Near the limit, a subject (a key, else an address) holding more than its share of the requests
 * in the server is shed first, so that one client sending most of the traffic cannot starve the
 * others.
 */
export function createLoadShedding(deps: LoadSheddingDeps) {
  const { limit, now } = deps;
  let inFlight = 0;
  const inFlightBySubject = new Map<string, number>();
  let sheddingSince: number | undefined;
  let lastShedAt = 0;
  let shedMeanwhile = 0;

  function endSheddingIfQuiet(at: number) {
    if (sheddingSince === undefined || at - lastShedAt < QUIET_MS) return;
    deps.onShedding({ shedding: false, shed: shedMeanwhile, forMs: lastShedAt - sheddingSince });
    sheddingSince = undefined;
  }

  function shed(context: RequestContext, reason: ShedReason): ApiError {
    const at = now();
    if (sheddingSince === undefined) {
      sheddingSince = at;
      shedMeanwhile = 0;
      deps.onShedding({ shedding: true });
    }
    lastShedAt = at;
    shedMeanwhile += 1;
    context.shed = true;
    limit.reached();
    deps.onShed(reason);
    return new ApiError('service_unavailable', BUSY, {
      headers: {
        'Retry-After': String(RETRY_AFTER_SECONDS),
        ...deps.standingHeaders(context.clientAddress),
      },
    });
  }

  /**
   * Near the limit, a subject's share is the limit divided among the subjects in the server and
   * one more, who may come: one subject alone keeps room for others.
   */
  function overFairShare(subject: string, limitNow: number): boolean {
    if (inFlight < limitNow * FAIR_SHARE_FROM) return false;
    const held = inFlightBySubject.get(subject) ?? 0;
    return held >= Math.max(1, limitNow / (inFlightBySubject.size + 1));
  }

  const stage: RequestHandler = (req, res, next) => {
    const context = contextOf(res);
    const { kind } = context.target;
    if (kind === 'probe' || kind === 'preflight') return next();
    const limitNow = limit.value;
    if (inFlight >= limitNow) return next(shed(context, 'over_limit'));
    const subject = subjectOf(req, context);
    if (overFairShare(subject, limitNow)) return next(shed(context, 'over_fair_share'));
    inFlight += 1;
    inFlightBySubject.set(subject, (inFlightBySubject.get(subject) ?? 0) + 1);
    context.admittedFor = subject;
    next();
  };

  /** A request's response is finished, or its connection closed, `elapsedMs` after it began. */
  function finished(context: RequestContext, elapsedMs: number): void {
    const subject = context.admittedFor;
    if (subject === undefined) return;
    inFlight -= 1;
    const held = (inFlightBySubject.get(subject) ?? 1) - 1;
    if (held === 0) inFlightBySubject.delete(subject);
    else inFlightBySubject.set(subject, held);
    const at = now();
    limit.sample(elapsedMs, at);
    endSheddingIfQuiet(at);
  }

  return { stage, finished, inFlight: () => inFlight };
}

export type LoadShedding = ReturnType<typeof createLoadShedding>;
