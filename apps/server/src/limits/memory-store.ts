import {
  type Admission,
  admitRequest,
  countsAt,
  type RateLimitCounts,
  standingOf,
} from '@animal-store/contract/rules';
import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../bounded-cache.js';
import type { AdmissionRequest, RateLimitStore } from './rate-limit-store.js';

/** Subjects (keys and client addresses) whose counters are kept, by default. */
export const DEFAULT_MAX_SUBJECTS = 100_000;

export interface MemoryStoreOptions {
  /** Most subjects with counters; past it, the least recently seen one is forgotten. */
  maxSubjects?: number;
}

/**
 * Counters in this process: exact for one instance, and the fallback while Redis is away.
 *
 * The decision is the interface's, shared with the mock (`admitRequest` and `countsAt` of
 * @animal-store/contract/rules); what is this store's own is where the counts live. Memory is
 * bounded without ever pausing a request for a sweep: counts live in an LRU of at most
 * `maxSubjects` entries, and a subject seen again after a window ends is rolled over when it is
 * read. Bans are kept apart too, so that forgetting a subject's counts never lifts its ban: a
 * subject's counts take its ban from there before each decision, and give a ban that began back.
 * Bans end in the order they began, and each request drops the ended ones at the front.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #counters: LRUCache<string, RateLimitCounts>;
  /** Subject → end of its ban (epoch ms), in the order the bans began. */
  readonly #bans = new Map<string, number>();

  constructor({ maxSubjects = DEFAULT_MAX_SUBJECTS }: MemoryStoreOptions = {}) {
    this.#counters = boundedCache(maxSubjects);
  }

  /** How many subjects have counters now. */
  get subjectCount(): number {
    return this.#counters.size;
  }

  readonly shared = false;

  async peek(request: AdmissionRequest): Promise<Admission> {
    return this.standing(request);
  }

  standing({ subject, quota, nowMs }: AdmissionRequest): Admission {
    const counts = countsAt(this.#counters.peek(subject), nowMs);
    counts.bannedUntilMs = this.#banEnd(subject);
    return standingOf(counts, quota, nowMs);
  }

  /**
   * Takes over a subject's counts as a shared store decided them, so that this process's view
   * (the probes' headers, and the counting while the shared store is away) starts from them.
   */
  observe(subject: string, nowMs: number, admission: Admission): void {
    const counts = countsAt(this.#counters.get(subject), nowMs);
    counts.minuteUsed = admission.minuteUsed;
    counts.dayUsed = admission.dayUsed;
    this.#counters.set(subject, counts);
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
    const counts = countsAt(this.#counters.get(subject), nowMs);
    this.#counters.set(subject, counts);
    const banEnd = this.#banEnd(subject);
    counts.bannedUntilMs = banEnd;
    const admission = admitRequest(counts, quota, nowMs);
    if (counts.bannedUntilMs !== banEnd) {
      // A ban began: it goes to the back of the line, the last to end.
      this.#bans.delete(subject);
      this.#bans.set(subject, counts.bannedUntilMs);
    }
    return admission;
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
}
