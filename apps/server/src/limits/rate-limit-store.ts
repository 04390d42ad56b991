import type { RequestTrace } from '../tracing/tracing.js';
import type { Quota } from './plans.js';

/** What the store decided for one request, with the counts after the decision. */
export interface Admission {
  outcome: 'allowed' | 'limited' | 'banned';
  minuteUsed: number;
  dayUsed: number;
  /** When the subject's ban ends (epoch ms), if it is banned. */
  bannedUntilMs?: number;
}

export type AdmissionOutcome = Admission['outcome'];

export interface AdmissionRequest {
  /** Whom the request is counted against: `key:<id>` or `ip:<address>`. */
  subject: string;
  quota: Quota;
  nowMs: number;
  /** The trace of the HTTP request decided, where a store records the calls it makes for it. */
  trace?: RequestTrace;
}

/** How long a subject is banned after too many rejections in one minute. */
export const BAN_MS = 15 * 60_000;

/** More rejections than this in one UTC minute earns a ban. */
export const banThreshold = (quota: Quota): number => Math.max(10, quota.perMinute);

/** What admit() would answer, from counts it has not changed. */
export function admissionFrom(
  counts: { minuteUsed: number; dayUsed: number; bannedUntilMs: number },
  { quota, nowMs }: AdmissionRequest,
): Admission {
  const { minuteUsed, dayUsed, bannedUntilMs } = counts;
  if (bannedUntilMs > nowMs) return { outcome: 'banned', minuteUsed, dayUsed, bannedUntilMs };
  const within = minuteUsed < quota.perMinute && dayUsed < quota.perDay;
  return { outcome: within ? 'allowed' : 'limited', minuteUsed, dayUsed };
}

/**
 * Counts requests in the UTC-minute and UTC-day windows. One call decides and counts atomically:
 * an allowed request is counted in both windows; a rejected one is not counted, only tallied
 * towards the ban.
 */
export interface RateLimitStore {
  /**
   * Decides `requests` in order, each seeing the counts the ones before it left, as one call
   * each would; the admission stage hands over the requests of one turn at once.
   */
  admit(requests: readonly AdmissionRequest[]): Promise<Admission[]>;
  /** The subject's state, neither counting the request nor tallying a rejection. */
  peek(request: AdmissionRequest): Promise<Admission>;
  /**
   * The subject's state as this process last saw it, at once and without asking a shared
   * store: for the probes, which must answer whatever Redis does.
   */
  standing(request: AdmissionRequest): Admission;
  /** Whether the counters are shared with other instances (in Redis) right now. */
  readonly shared: boolean;
  close(): Promise<void>;
}
