const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export interface Quota {
  perMinute: number;
  perDay: number;
}

interface Counters {
  minute: number;
  minuteUsed: number;
  day: number;
  dayUsed: number;
}

export interface Verdict {
  allowed: boolean;
  headers: Record<string, string>;
}

/** The UTC minute and UTC day a moment falls in, and when each window ends. */
export const minuteOf = (nowMs: number) => Math.floor(nowMs / MINUTE_MS);
export const dayOf = (nowMs: number) => Math.floor(nowMs / DAY_MS);
export const minuteEndMs = (nowMs: number) => (minuteOf(nowMs) + 1) * MINUTE_MS;
export const dayEndMs = (nowMs: number) => (dayOf(nowMs) + 1) * DAY_MS;

/**
 * The answer to a request decided with these counts (after it: an allowed request is counted in
 * both windows, a refused one in neither). The headers describe the binding window, as the
 * server's do.
 */
export function verdictOf(
  allowed: boolean,
  minuteUsed: number,
  dayUsed: number,
  quota: Quota,
  nowMs: number,
): Verdict {
  const minuteLeft = Math.max(0, quota.perMinute - minuteUsed);
  const dayLeft = Math.max(0, quota.perDay - dayUsed);
  const minuteEndsMs = minuteEndMs(nowMs);
  const dayEndsMs = dayEndMs(nowMs);
  // The exhausted window that resets last, else the one with less left (the minute on a tie).
  const dayBinds = dayLeft === 0 || (minuteLeft !== 0 && dayLeft < minuteLeft);
  const [limit, remaining, resetsAtMs] = dayBinds
    ? [quota.perDay, dayLeft, dayEndsMs]
    : [quota.perMinute, minuteLeft, minuteEndsMs];
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(Math.ceil(resetsAtMs / 1000)),
  };
  if (!allowed) {
    const acceptedAgainMs = dayLeft === 0 ? dayEndsMs : minuteEndsMs;
    headers['Retry-After'] = String(Math.max(1, Math.ceil((acceptedAgainMs - nowMs) / 1000)));
  }
  return { allowed, headers };
}

/**
 * The server's rule, in this process: per subject, fixed UTC-minute and UTC-day windows; an
 * allowed request counts in both, a refused one in neither.
 */
export function createRateLimits() {
  const counters = new Map<string, Counters>();

  return function admit(subject: string, quota: Quota, nowMs: number): Verdict {
    const minute = minuteOf(nowMs);
    const day = dayOf(nowMs);
    let entry = counters.get(subject);
    if (!entry) {
      entry = { minute, minuteUsed: 0, day, dayUsed: 0 };
      counters.set(subject, entry);
    }
    if (entry.minute !== minute) {
      entry.minute = minute;
      entry.minuteUsed = 0;
    }
    if (entry.day !== day) {
      entry.day = day;
      entry.dayUsed = 0;
    }
    const allowed = entry.minuteUsed < quota.perMinute && entry.dayUsed < quota.perDay;
    if (allowed) {
      entry.minuteUsed += 1;
      entry.dayUsed += 1;
    }
    return verdictOf(allowed, entry.minuteUsed, entry.dayUsed, quota, nowMs);
  };
}

/** Decides a request: at once when counted in this process, after a round trip when in Redis. */
export type RateLimits = (
  subject: string,
  quota: Quota,
  nowMs: number,
) => Verdict | Promise<Verdict>;
