/**
 * docs/interface.md, "Rate limits" and "Temporary ban": what one request of a subject (an API key
 * or a client address) gets, from the subject's counts. Storage is the caller's: these functions
 * read and update a `RateLimitCounts` it keeps wherever it keeps them, and allocate nothing but
 * the admission they answer, since a server runs them on every request.
 */
import type { Quota } from '../plans.js';
import { DAY_MS, MINUTE_MS } from './rate-limit-windows.js';

/** What a request got, with the subject's counts after it. */
export interface Admission {
  outcome: 'allowed' | 'limited' | 'banned';
  minuteUsed: number;
  dayUsed: number;
  /** When the subject's ban ends (epoch ms), if it is banned. */
  bannedUntilMs?: number;
}

export type AdmissionOutcome = Admission['outcome'];

/** A subject's counts in the windows `minute` and `day` (their numbers since the epoch). */
export interface RateLimitCounts {
  minute: number;
  minuteUsed: number;
  day: number;
  dayUsed: number;
  /** Requests refused (not banned) in this minute: the ban's tally. */
  rejections: number;
  /** When the subject's ban ends (epoch ms); 0, or a past instant, when it is not banned. */
  bannedUntilMs: number;
}

/** How long a subject is banned after too many rejections in one minute. */
export const BAN_MS = 15 * 60_000;

/** More rejections than this in one UTC minute earn a ban. */
export const banThreshold = (quota: Quota): number => Math.max(10, quota.perMinute);

/**
 * `counts` rolled over, in place, to the windows `nowMs` falls in: a new minute starts its count
 * and the ban's tally at 0, a new day its count. Fresh counts for a subject not seen before.
 */
export function countsAt(counts: RateLimitCounts | undefined, nowMs: number): RateLimitCounts {
  const minute = Math.floor(nowMs / MINUTE_MS);
  const day = Math.floor(nowMs / DAY_MS);
  if (counts === undefined) {
    return { minute, minuteUsed: 0, day, dayUsed: 0, rejections: 0, bannedUntilMs: 0 };
  }
  if (counts.minute !== minute) {
    counts.minute = minute;
    counts.minuteUsed = 0;
    counts.rejections = 0;
  }
  if (counts.day !== day) {
    counts.day = day;
    counts.dayUsed = 0;
  }
  return counts;
}

/**
 * Decides one request and counts it in `counts` (already rolled over to `nowMs`'s windows): an
 * allowed request counts once in each window; a refused one is not counted, only tallied towards
 * a ban; a banned one neither counts nor extends the ban. The rejection that crosses the
 * threshold is still `limited`: the ban holds from the next request on.
 */
export function admitRequest(counts: RateLimitCounts, quota: Quota, nowMs: number): Admission {
  const { minuteUsed, dayUsed, bannedUntilMs } = counts;
  if (bannedUntilMs > nowMs) return { outcome: 'banned', minuteUsed, dayUsed, bannedUntilMs };
  if (minuteUsed < quota.perMinute && dayUsed < quota.perDay) {
    counts.minuteUsed = minuteUsed + 1;
    counts.dayUsed = dayUsed + 1;
    return { outcome: 'allowed', minuteUsed: minuteUsed + 1, dayUsed: dayUsed + 1 };
  }
  counts.rejections += 1;
  if (counts.rejections > banThreshold(quota)) counts.bannedUntilMs = nowMs + BAN_MS;
  return { outcome: 'limited', minuteUsed, dayUsed };
}

/** What admitRequest() would answer, from counts it leaves as they are: a subject's standing. */
export function standingOf(
  counts: Pick<RateLimitCounts, 'minuteUsed' | 'dayUsed' | 'bannedUntilMs'>,
  quota: Quota,
  nowMs: number,
): Admission {
  const { minuteUsed, dayUsed, bannedUntilMs } = counts;
  if (bannedUntilMs > nowMs) return { outcome: 'banned', minuteUsed, dayUsed, bannedUntilMs };
  const within = minuteUsed < quota.perMinute && dayUsed < quota.perDay;
  return { outcome: within ? 'allowed' : 'limited', minuteUsed, dayUsed };
}
