import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from './memory-store.js';
import { PLAN_QUOTAS } from './plans.js';

const quota = PLAN_QUOTAS.free;
const NOW = Date.UTC(2026, 2, 10, 12, 0, 30);

describe('MemoryRateLimitStore', () => {
  it('lets the requests it counts in one turn go on together, as one Redis reply does', async () => {
    const store = new MemoryRateLimitStore();
    const steps: string[] = [];
    // Two requests read from two sockets: two callbacks of one event-loop phase. Immediates queued
    // together run in one check phase; two timers may fall due in different turns on a busy machine.
    await Promise.all(
      ['a', 'b'].map(
        (subject) =>
          new Promise<void>((resolve) =>
            setImmediate(async () => {
              await store.admit({ subject, quota, nowMs: NOW });
              steps.push(`${subject} admitted`);
              await Promise.resolve();
              steps.push(`${subject} next step`);
              resolve();
            }),
          ),
      ),
    );
    expect(steps).toEqual(['a admitted', 'b admitted', 'a next step', 'b next step']);
  });

  it('holds at most maxSubjects counters through a million distinct subjects, and forgets no ban doing so', async () => {
    const store = new MemoryRateLimitStore({ maxSubjects: 10_000 });
    // A subject that earns a ban: 60 allowed, then more than 60 rejections.
    for (let i = 0; i < 60 + 61; i += 1)
      await store.admit({ subject: 'ip:abuser', quota, nowMs: NOW });
    expect((await store.admit({ subject: 'ip:abuser', quota, nowMs: NOW })).outcome).toBe('banned');

    for (let i = 0; i < 1_000_000; i += 1) {
      await store.admit({ subject: `ip:client-${i}`, quota, nowMs: NOW + 1 });
      if (i % 100_000 === 0) expect(store.subjectCount).toBeLessThanOrEqual(10_000);
    }
    expect(store.subjectCount).toBe(10_000);

    // The abuser's counters were forgotten long ago; its ban was not.
    const later = await store.admit({ subject: 'ip:abuser', quota, nowMs: NOW + 60_000 });
    expect(later.outcome).toBe('banned');
    // The most recently seen subjects keep their counts.
    const recent = await store.peek({ subject: 'ip:client-999999', quota, nowMs: NOW + 2 });
    expect(recent.minuteUsed).toBe(1);
  });

  it('lifts a ban when it ends, and rolls a subject over to new windows when it is next seen', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 60 + 61; i += 1) await store.admit({ subject: 'key:k', quota, nowMs: NOW });
    const banned = await store.admit({ subject: 'key:k', quota, nowMs: NOW });
    expect(banned).toMatchObject({ outcome: 'banned', bannedUntilMs: NOW + 15 * 60_000 });

    const afterBan = await store.admit({ subject: 'key:k', quota, nowMs: NOW + 15 * 60_000 });
    expect(afterBan).toMatchObject({ outcome: 'allowed', minuteUsed: 1, dayUsed: 61 });
    const nextDay = await store.admit({ subject: 'key:k', quota, nowMs: NOW + 86_400_000 });
    expect(nextDay).toMatchObject({ outcome: 'allowed', minuteUsed: 1, dayUsed: 1 });
  });
});
