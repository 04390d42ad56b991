/**
 * The rate-limit decision, one table for every store: the cases of `@animal-store/contract/rules`
 * (RATE_LIMIT_DECISION_CASES) run against the in-process store and against the Redis store (its
 * Lua script, on a real Redis), so that a rule changed in one and not the other fails here. The
 * rules' own tests and the mock's run the same table.
 */
import { randomUUID } from 'node:crypto';
import {
  type DecisionStep,
  dayWindow,
  decisionAsExpected,
  type ExpectedDecision,
  minuteWindow,
  RATE_LIMIT_DECISION_CASES,
  type StartingCounts,
  type SubjectRequest,
} from '@animal-store/contract/rules';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from '../../src/limits/memory-store.js';
import type { RateLimitStore } from '../../src/limits/rate-limit-store.js';
import { RedisRateLimitStore } from '../../src/limits/redis-store.js';
import { createLogger } from '../../src/logger.js';
import { SHARED_REDIS_URL } from '../../testing/test-services.js';

/** A store for one case, fresh, with the means to give it a case's starting counts. */
interface StoreUnderTest {
  store: RateLimitStore;
  start(counts: StartingCounts): Promise<void>;
  /** Whether every decision so far was the store's own (not the Redis store's fallback). */
  decidedItself(): boolean;
  close(): Promise<void>;
}

function inProcess(): StoreUnderTest {
  const store = new MemoryRateLimitStore();
  return {
    store,
    async start({ subject, atMs, minuteUsed, dayUsed }) {
      store.observe(subject, atMs, { outcome: 'allowed', minuteUsed, dayUsed });
    },
    decidedItself: () => true,
    close: () => store.close(),
  };
}

/** Every key of this file's Redis stores starts with it, so the file's keys are removed at its end. */
const RUN_PREFIX = `test:${randomUUID()}:`;

async function inRedis(): Promise<StoreUnderTest> {
  const keyPrefix = `${RUN_PREFIX}${randomUUID()}:`;
  let fallbacks = 0;
  const store = new RedisRateLimitStore(SHARED_REDIS_URL, createLogger('silent'), {
    keyPrefix,
    onFallback: () => {
      fallbacks += 1;
    },
  });
  expect(await store.connected()).toBe(true);
  const redis = new Redis(SHARED_REDIS_URL, { keyPrefix });
  return {
    store,
    async start({ subject, atMs, minuteUsed, dayUsed }) {
      // Under the store's own key names: counting up to such numbers would take years.
      await redis.set(`rl:{${subject}}:m:${minuteWindow(atMs).index}`, minuteUsed, 'EX', 120);
      await redis.set(`rl:{${subject}}:d:${dayWindow(atMs).index}`, dayUsed, 'EX', 120);
    },
    // A failed script or read is answered from the in-process store and pauses Redis: `shared`
    // is false then, and a failed admit() counts its requests as fallbacks.
    decidedItself: () => fallbacks === 0 && store.shared,
    async close() {
      redis.disconnect();
      await store.close();
    },
  };
}

afterAll(async () => {
  const redis = new Redis(SHARED_REDIS_URL);
  try {
    const keys = await redis.keys(`${RUN_PREFIX}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
});

/** Runs one step and checks each of its answers; `name` says which step a failure is in. */
async function run(store: RateLimitStore, step: DecisionStep, name: string) {
  const { atMs } = step;
  if ('peek' in step) {
    const admission = await store.peek({ ...step.peek, nowMs: atMs });
    expect(decisionAsExpected(admission, step.decision, step.peek, atMs), name).toEqual(
      step.decision,
    );
    return;
  }
  const admissions = await store.admit(step.admit.map((request) => ({ ...request, nowMs: atMs })));
  const answered = admissions.map((admission, i) =>
    decisionAsExpected(
      admission,
      step.decisions[i] as ExpectedDecision,
      step.admit[i] as SubjectRequest,
      atMs,
    ),
  );
  expect(answered, name).toEqual(step.decisions);
}

describe.each([
  ['in this process (MemoryRateLimitStore)', async () => inProcess()],
  ['in Redis (RedisRateLimitStore)', inRedis],
] as const)('Rate-limit decisions %s', (_, open) => {
  it.each(RATE_LIMIT_DECISION_CASES)('$name', async ({ startingCounts = [], steps }) => {
    const subject = await open();
    try {
      for (const counts of startingCounts) await subject.start(counts);
      for (const [index, step] of steps.entries()) {
        const name = `step ${index + 1}`;
        await run(subject.store, step, name);
        expect(subject.decidedItself(), `${name} was decided by the store itself`).toBe(true);
      }
    } finally {
      await subject.close();
    }
  });
});
