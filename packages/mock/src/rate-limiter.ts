/**
 * Counting requests per key or client IP in UTC calendar minutes and days, and banning those
 * refused too often (docs/interface.md, "Rate limits"). The decision is the interface's, shared
 * with the server (`countsAt` and `admitRequest` of @animal-store/contract/rules); what is the
 * mock's own is where the counts live, a map that `reset()` clears. Every instant comes from the
 * mock's clock.
 */
import {
  type Admission,
  admitRequest,
  countsAt,
  type RateLimitCounts,
  standingOf,
} from '@animal-store/contract/rules';
import type { Quota } from './limits.js';

export class RateLimiter {
  readonly #subjects: Map<string, RateLimitCounts>;

  /** `subjects`: the counts to start from, by subject (a test's; none by default). */
  constructor(subjects = new Map<string, RateLimitCounts>()) {
    this.#subjects = subjects;
  }

  /** The subject's standing, without counting anything (the probes, preflights, 503s). */
  peek(subject: string, quota: Quota, nowMs: number): Admission {
    return standingOf(this.#countsOf(subject, nowMs), quota, nowMs);
  }

  /** Counts the request if the subject may make it; otherwise says why not. */
  admit(subject: string, quota: Quota, nowMs: number): Admission {
    return admitRequest(this.#countsOf(subject, nowMs), quota, nowMs);
  }

  clear(): void {
    this.#subjects.clear();
  }

  /** The subject's counts, rolled over to the windows `nowMs` falls in. */
  #countsOf(subject: string, nowMs: number): RateLimitCounts {
    const counts = countsAt(this.#subjects.get(subject), nowMs);
    this.#subjects.set(subject, counts);
    return counts;
  }
}
