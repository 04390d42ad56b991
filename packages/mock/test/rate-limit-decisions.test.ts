/**
 * The mock's limiter against the interface's table of rate-limit cases, the table the shared
 * rules and the server's stores (in process and in Redis) run too.
 */
import {
  countsAt,
  decisionAsExpected,
  type ExpectedDecision,
  RATE_LIMIT_DECISION_CASES,
  type RateLimitCounts,
  type StartingCounts,
} from '@animal-store/contract/rules';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../src/rate-limiter.js';

/** The counts a case starts from, as earlier requests in the windows of their instant left them. */
function startingFrom(startingCounts: readonly StartingCounts[]): Map<string, RateLimitCounts> {
  const subjects = new Map<string, RateLimitCounts>();
  for (const { subject, atMs, minuteUsed, dayUsed } of startingCounts) {
    subjects.set(subject, { ...countsAt(undefined, atMs), minuteUsed, dayUsed });
  }
  return subjects;
}

describe('the mock’s rate limiter', () => {
  it.each(RATE_LIMIT_DECISION_CASES)('$name', ({ startingCounts = [], steps }) => {
    const limiter = new RateLimiter(startingFrom(startingCounts));
    for (const [index, step] of steps.entries()) {
      const name = `step ${index + 1}`;
      const { atMs } = step;
      if ('peek' in step) {
        const admission = limiter.peek(step.peek.subject, step.peek.quota, atMs);
        expect(decisionAsExpected(admission, step.decision, step.peek, atMs), name).toEqual(
          step.decision,
        );
        continue;
      }
      const answered = step.admit.map((request, i) =>
        decisionAsExpected(
          limiter.admit(request.subject, request.quota, atMs),
          step.decisions[i] as ExpectedDecision,
          request,
          atMs,
        ),
      );
      expect(answered, name).toEqual(step.decisions);
    }
  });
});
