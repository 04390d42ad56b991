import {
  type Admission,
  type AdmissionRequest,
  admissionFrom,
  BAN_MS,
  banThreshold,
  type RateLimitStore,
} from './rate-limit-store.js';
import { dayWindow, minuteWindow } from './windows.js';

interface Counters {
  minute: number;
  minuteUsed: number;
  day: number;
  dayUsed: number;
  rejections: number;
  bannedUntilMs: number;
}

/** Subjects idle for a whole day hold no information any more. */
const SWEEP_EVERY_MS = 60_000;

/** Counters in this process: exact for one instance, and the fallback while Redis is away. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #counters = new Map<string, Counters>();
  #lastSweepMs = 0;

  async peek(request: AdmissionRequest): Promise<Admission> {
    return admissionFrom(this.#current(request.subject, request.nowMs), request);
  }

  async admit({ subject, quota, nowMs }: AdmissionRequest): Promise<Admission> {
    this.#sweep(nowMs);
    const counters = this.#current(subject, nowMs);
    this.#counters.set(subject, counters);

    const used = { minuteUsed: counters.minuteUsed, dayUsed: counters.dayUsed };
    if (counters.bannedUntilMs > nowMs) {
      return { outcome: 'banned', ...used, bannedUntilMs: counters.bannedUntilMs };
    }
    if (counters.minuteUsed < quota.perMinute && counters.dayUsed < quota.perDay) {
      counters.minuteUsed += 1;
      counters.dayUsed += 1;
      return { outcome: 'allowed', minuteUsed: counters.minuteUsed, dayUsed: counters.dayUsed };
    }
    counters.rejections += 1;
    if (counters.rejections > banThreshold(quota)) counters.bannedUntilMs = nowMs + BAN_MS;
    return { outcome: 'limited', ...used };
  }

  /** The subject's counters, rolled over to the windows `nowMs` falls in. */
  #current(subject: string, nowMs: number): Counters {
    const minute = minuteWindow(nowMs).index;
    const day = dayWindow(nowMs).index;
    const counters = this.#counters.get(subject) ?? {
      minute,
      minuteUsed: 0,
      day,
      dayUsed: 0,
      rejections: 0,
      bannedUntilMs: 0,
    };
    if (counters.minute !== minute)
      Object.assign(counters, { minute, minuteUsed: 0, rejections: 0 });
    if (counters.day !== day) Object.assign(counters, { day, dayUsed: 0 });
    return counters;
  }

  async close(): Promise<void> {
    this.#counters.clear();
  }

  #sweep(nowMs: number) {
    if (nowMs - this.#lastSweepMs < SWEEP_EVERY_MS) return;
    this.#lastSweepMs = nowMs;
    const today = dayWindow(nowMs).index;
    for (const [subject, counters] of this.#counters) {
      if (counters.day < today && counters.bannedUntilMs <= nowMs) this.#counters.delete(subject);
    }
  }
}
