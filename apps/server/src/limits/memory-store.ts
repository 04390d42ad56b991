import { LRUCache } from 'lru-cache';
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
}

/** Subjects (keys and client addresses) whose counters are kept, by default. */
export const DEFAULT_MAX_SUBJECTS = 100_000;

export interface MemoryStoreOptions {
  /** Most subjects with counters; past it, the least recently seen one is forgotten. */
  maxSubjects?: number;
}

/**
 * Counters in this process: exact for one instance, and the fallback while Redis is away.
 *
 * Memory is bounded without ever pausing a request for a sweep: counters live in an LRU of at
 * most `maxSubjects` entries, and a subject seen again after a window ends is rolled over when
 * it is read. Bans are kept apart, so that forgetting a subject's counters never lifts its ban;
 * they end in the order they began, and each request drops the ended ones at the front.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #counters: LRUCache<string, Counters>;
  /** Subject → end of its ban (epoch ms), in the order the bans began. */
  readonly #bans = new Map<string, number>();

  constructor({ maxSubjects = DEFAULT_MAX_SUBJECTS }: MemoryStoreOptions = {}) {
    this.#counters = new LRUCache({ max: maxSubjects });
  }

  /** How many subjects have counters now. */
  get subjectCount(): number {
    return this.#counters.size;
  }

  readonly shared = false;

  async peek(request: AdmissionRequest): Promise<Admission> {
    return this.standing(request);
  }

  standing(request: AdmissionRequest): Admission {
    const counters = this.#rolledOver(this.#counters.peek(request.subject), request.nowMs);
    return admissionFrom({ ...counters, bannedUntilMs: this.#banEnd(request.subject) }, request);
  }

  /**
   * Takes over a subject's counts as a shared store decided them, so that this process's view
   * (the probes' headers, and the counting while the shared store is away) starts from them.
   */
  observe(subject: string, nowMs: number, admission: Admission): void {
    const counters = this.#rolledOver(this.#counters.get(subject), nowMs);
    counters.minuteUsed = admission.minuteUsed;
    counters.dayUsed = admission.dayUsed;
    this.#counters.set(subject, counters);
    if (admission.bannedUntilMs !== undefined && admission.bannedUntilMs > this.#banEnd(subject)) {
      this.#bans.delete(subject);
      this.#bans.set(subject, admission.bannedUntilMs);
    }
  }

  async admit(requests: readonly AdmissionRequest[]): Promise<Admission[]> {
    return requests.map((request) => this.#admitOne(request));
  }

  #admitOne({ subject, quota, nowMs }: AdmissionRequest): Admission {
    this.#endBans(nowMs);
    const counters = this.#rolledOver(this.#counters.get(subject), nowMs);
    this.#counters.set(subject, counters);

    const used = { minuteUsed: counters.minuteUsed, dayUsed: counters.dayUsed };
    const bannedUntilMs = this.#banEnd(subject);
    if (bannedUntilMs > nowMs) return { outcome: 'banned', ...used, bannedUntilMs };
    if (counters.minuteUsed < quota.perMinute && counters.dayUsed < quota.perDay) {
      counters.minuteUsed += 1;
      counters.dayUsed += 1;
      return { outcome: 'allowed', minuteUsed: counters.minuteUsed, dayUsed: counters.dayUsed };
    }
    counters.rejections += 1;
    if (counters.rejections > banThreshold(quota)) {
      this.#bans.delete(subject);
      this.#bans.set(subject, nowMs + BAN_MS);
    }
    return { outcome: 'limited', ...used };
  }

  async close(): Promise<void> {
    this.#counters.clear();
    this.#bans.clear();
  }

  #banEnd(subject: string): number {
    return this.#bans.get(subject) ?? 0;
  }

  /** Drops the bans that ended by `nowMs`: the oldest come first, so only those are looked at. */
  #endBans(nowMs: number) {
    for (const [subject, endsAtMs] of this.#bans) {
      if (endsAtMs > nowMs) return;
      this.#bans.delete(subject);
    }
  }

  /** The counters, rolled over to the windows `nowMs` falls in (fresh ones for a new subject). */
  #rolledOver(counters: Counters | undefined, nowMs: number): Counters {
    const minute = minuteWindow(nowMs).index;
    const day = dayWindow(nowMs).index;
    const current = counters ?? { minute, minuteUsed: 0, day, dayUsed: 0, rejections: 0 };
    if (current.minute !== minute) {
      Object.assign(current, { minute, minuteUsed: 0, rejections: 0 });
    }
    if (current.day !== day) Object.assign(current, { day, dayUsed: 0 });
    return current;
  }
}
