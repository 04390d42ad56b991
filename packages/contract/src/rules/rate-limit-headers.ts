/**
 * docs/interface.md, "Rate limits": the `X-RateLimit-*` headers describe one window, the binding
 * one, and a refused request's `Retry-After` says when a request would be accepted again.
 */
import type { Quota } from '../plans.js';
import type { Admission } from './rate-limit-decision.js';
import { dayWindow, minuteWindow } from './rate-limit-windows.js';

/**
 * The headers of every answer counted against a subject. A type rather than an interface, so
 * that it is a `Record<string, string>` too, as header maps are taken.
 */
export type RateLimitHeaders = {
  'X-RateLimit-Limit': string;
  'X-RateLimit-Remaining': string;
  /** When the binding window resets, in whole seconds since the epoch. */
  'X-RateLimit-Reset': string;
};

interface WindowState {
  limit: number;
  remaining: number;
  resetsAtMs: number;
}

function windowStates(admission: Admission, quota: Quota, nowMs: number) {
  const minute: WindowState = {
    limit: quota.perMinute,
    remaining: Math.max(0, quota.perMinute - admission.minuteUsed),
    resetsAtMs: minuteWindow(nowMs).endsAtMs,
  };
  const day: WindowState = {
    limit: quota.perDay,
    remaining: Math.max(0, quota.perDay - admission.dayUsed),
    resetsAtMs: dayWindow(nowMs).endsAtMs,
  };
  return { minute, day };
}

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

/** The headers of the binding window, as the subject stands after `admission`. */
export function rateLimitHeaders(
  admission: Admission,
  quota: Quota,
  nowMs: number,
): RateLimitHeaders {
  const { minute, day } = windowStates(admission, quota, nowMs);
  const binding = bindingWindow(minute, day);
  return {
    'X-RateLimit-Limit': String(binding.limit),
    'X-RateLimit-Remaining': String(binding.remaining),
    'X-RateLimit-Reset': String(Math.ceil(binding.resetsAtMs / 1000)),
  };
}

/**
 * Whole seconds, at least 1, until a request from this subject would be accepted again: the
 * ban's end; for a limited one, the day's end when the day is spent, else the minute's.
 */
export function retryAfterSeconds(admission: Admission, quota: Quota, nowMs: number): number {
  const { minute, day } = windowStates(admission, quota, nowMs);
  let acceptedAgainMs = admission.bannedUntilMs ?? nowMs;
  if (admission.outcome === 'limited') {
    acceptedAgainMs = day.remaining === 0 ? day.resetsAtMs : minute.resetsAtMs;
  }
  return Math.max(1, Math.ceil((acceptedAgainMs - nowMs) / 1000));
}
