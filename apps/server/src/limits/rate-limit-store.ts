import type { Admission } from '@animal-store/contract/rules';
import type { RequestTrace } from '../tracing/tracing.js';
import type { Quota } from './plans.js';

/** The decision and its rules are the interface's, shared with the mock: @animal-store/contract/rules. */
export type { Admission, AdmissionOutcome } from '@animal-store/contract/rules';

export interface AdmissionRequest {
  /** Whom the request is counted against: `key:<id>` or `ip:<address>`. */
  subject: string;
  quota: Quota;
  nowMs: number;
  /** The trace of the HTTP request decided, where a store records the calls it makes for it. */
  trace?: RequestTrace;
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
