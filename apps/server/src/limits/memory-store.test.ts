import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from './memory-store.js';
import { PLAN_QUOTAS } from './plans.js';
import type { Admission, AdmissionRequest } from './rate-limit-store.js';

const quota = PLAN_QUOTAS.free;
const NOW = Date.UTC(2026, 2, 10, 12, 0, 30);

/** One request's decision, as a batch of one. */
async function admitOne(store: MemoryRateLimitStore, request: AdmissionRequest) {
  const [decision] = await store.admit([request]);
  return decision as Admission;
}

describe('MemoryRateLimitStore', () => {
  it('holds at most maxSubjects counters through a million distinct subjects, and forgets no ban doing so', async () => {
    const store = new MemoryRateLimitStore({ maxSubjects: 10_000 });
    // A subject that earns a ban: 60 allowed, then more than 60 rejections.
    for (let i = 0; i < 60 + 61; i += 1)
      await admitOne(store, { subject: 'ip:abuser', quota, nowMs: NOW });
    expect((await admitOne(store, { subject: 'ip:abuser', quota, nowMs: NOW })).outcome).toBe(
      'banned',
    );

    for (let i = 0; i < 1_000_000; i += 1) {
      await admitOne(store, { subject: `ip:client-${i}`, quota, nowMs: NOW + 1 });
      if (i % 100_000 === 0) expect(store.subjectCount).toBeLessThanOrEqual(10_000);
    }
    expect(store.subjectCount).toBe(10_000);

    // The abuser's counters were forgotten long ago; its ban was not.
    const later = await admitOne(store, { subject: 'ip:abuser', quota, nowMs: NOW + 60_000 });
    expect(later.outcome).toBe('banned');
    // The most recently seen subjects keep their counts.
    const recent = await store.peek({ subject: 'ip:client-999999', quota, nowMs: NOW + 2 });
    expect(recent.minuteUsed).toBe(1);
  });
});
