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

/**
 * The server's rule, in this process: per subject, fixed UTC-minute and UTC-day windows; an
 * allowed request counts in both, a refused one in neither. The headers describe the binding
 * window, as the server's do.
 */
export function createRateLimits() {
  const counters = new Map<string, Counters>();

  return function admit(subject: string, quota: Quota, nowMs: number): Verdict {
    const minute = Math.floor(nowMs / MINUTE_MS);
    const day = Math.floor(nowMs / DAY_MS);
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
    const minuteLeft = Math.max(0, quota.perMinute - entry.minuteUsed);
    const dayLeft = Math.max(0, quota.perDay - entry.dayUsed);
    const minuteEndsMs = (minute + 1) * MINUTE_MS;
    const dayEndsMs = (day + 1) * DAY_MS;
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
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
