/**
 * Counting requests per key or client IP in UTC calendar minutes and days, and banning those
 * refused too often (docs/interface.md, "Rate limits"). Every instant comes from the mock's clock.
 */
import { BAN_MS, banThreshold, DAY_MS, MINUTE_MS, type Quota } from './limits.js';

interface Counters {
  minute: number;
  minuteUsed: number;
  day: number;
  dayUsed: number;
  rejections: number;
  bannedUntilMs: number;
}

export type Outcome = 'allowed' | 'limited' | 'banned';

/** What became of a request, and the headers that say where its client stands. */
export interface Admission {
  readonly outcome: Outcome;
  readonly headers: Record<string, string>;
  /** Milliseconds until a refused request would be accepted; only when refused. */
  readonly retryAfterMs?: number;
}

interface WindowState {
  readonly limit: number;
  readonly remaining: number;
  readonly resetsAtMs: number;
}

const windowEnd = (nowMs: number, lengthMs: number) =>
  (Math.floor(nowMs / lengthMs) + 1) * lengthMs;

/**
 * The window the headers describe: of the exhausted ones, the one that resets last; otherwise
 * the one with fewer requests remaining, the minute on a tie.
 */
function bindingWindow(minute: WindowState, day: WindowState): WindowState {
  const exhausted = [minute, day].filter((window) => window.remaining === 0);
  if (exhausted.length > 0) {
    return exhausted.reduce((latest, window) =>
      window.resetsAtMs > latest.resetsAtMs ? window : latest,
    );
  }
  return day.remaining < minute.remaining ? day : minute;
}

function windowsOf(counters: Counters, quota: Quota, nowMs: number) {
  const minute: WindowState = {
    limit: quota.perMinute,
    remaining: Math.max(0, quota.perMinute - counters.minuteUsed),
    resetsAtMs: windowEnd(nowMs, MINUTE_MS),
  };
  const day: WindowState = {
    limit: quota.perDay,
    remaining: Math.max(0, quota.perDay - counters.dayUsed),
    resetsAtMs: windowEnd(nowMs, DAY_MS),
  };
  return { minute, day };
}

function headersOf(counters: Counters, quota: Quota, nowMs: number): Record<string, string> {
  const { minute, day } = windowsOf(counters, quota, nowMs);
  const binding = bindingWindow(minute, day);
  return {
    'X-RateLimit-Limit': String(binding.limit),
    'X-RateLimit-Remaining': String(binding.remaining),
    'X-RateLimit-Reset': String(Math.ceil(binding.resetsAtMs / 1000)),
  };
}

export class RateLimiter {
  readonly #subjects = new Map<string, Counters>();

  /** The subject's standing, without counting anything (the probes, preflights, 503s). */
  peek(subject: string, quota: Quota, nowMs: number): Record<string, string> {
    return headersOf(this.#countersOf(subject, nowMs), quota, nowMs);
  }

  /** Counts the request if the subject may make it; otherwise says why not and for how long. */
  admit(subject: string, quota: Quota, nowMs: number): Admission {
    const counters = this.#countersOf(subject, nowMs);
    if (counters.bannedUntilMs > nowMs) {
      return {
        outcome: 'banned',
        headers: headersOf(counters, quota, nowMs),
        retryAfterMs: counters.bannedUntilMs - nowMs,
      };
    }
    if (counters.minuteUsed < quota.perMinute && counters.dayUsed < quota.perDay) {
      counters.minuteUsed += 1;
      counters.dayUsed += 1;
      return { outcome: 'allowed', headers: headersOf(counters, quota, nowMs) };
    }
    // The rejection that crosses the threshold is still `rate_limited`; the ban starts after it.
    counters.rejections += 1;
    if (counters.rejections > banThreshold(quota)) counters.bannedUntilMs = nowMs + BAN_MS;
    const { minute, day } = windowsOf(counters, quota, nowMs);
    const acceptedAgainMs = day.remaining === 0 ? day.resetsAtMs : minute.resetsAtMs;
    return {
      outcome: 'limited',
      headers: headersOf(counters, quota, nowMs),
      retryAfterMs: acceptedAgainMs - nowMs,
    };
  }

  clear(): void {
    this.#subjects.clear();
  }

  /** The subject's counters, rolled over to the windows `nowMs` falls in. */
  #countersOf(subject: string, nowMs: number): Counters {
    const minute = Math.floor(nowMs / MINUTE_MS);
    const day = Math.floor(nowMs / DAY_MS);
    let counters = this.#subjects.get(subject);
    if (counters === undefined) {
      counters = { minute, minuteUsed: 0, day, dayUsed: 0, rejections: 0, bannedUntilMs: 0 };
      this.#subjects.set(subject, counters);
    }
    if (counters.minute !== minute) {
      Object.assign(counters, { minute, minuteUsed: 0, rejections: 0 });
    }
    if (counters.day !== day) Object.assign(counters, { day, dayUsed: 0 });
    return counters;
  }
}
