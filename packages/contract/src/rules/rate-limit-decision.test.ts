/**
 * The shared decision run against the table of cases, over the simplest storage there is: a map
 * of counts. The mock's limiter and the server's stores run the same table.
 */
import { describe, expect, it } from 'vitest';
import { admitRequest, countsAt, type RateLimitCounts, standingOf } from './rate-limit-decision.js';
import {
  decisionAsExpected,
  type ExpectedDecision,
  RATE_LIMIT_DECISION_CASES,
  type SubjectRequest,
} from './rate-limit-decision-cases.js';

describe('the rate-limit decision over a map of counts', () => {
  it.each(RATE_LIMIT_DECISION_CASES)('$name', ({ startingCounts = [], steps }) => {
    const subjects = new Map<string, RateLimitCounts>();
    const countsOf = (subject: string, nowMs: number) => {
      const counts = countsAt(subjects.get(subject), nowMs);
      subjects.set(subject, counts);
      return counts;
    };
    for (const { subject, atMs, minuteUsed, dayUsed } of startingCounts) {
      Object.assign(countsOf(subject, atMs), { minuteUsed, dayUsed });
    }
    for (const [index, step] of steps.entries()) {
      const name = `step ${index + 1}`;
      const { atMs } = step;
      if ('peek' in step) {
        const { subject, quota } = step.peek;
        const admission = standingOf(countsOf(subject, atMs), quota, atMs);
        expect(decisionAsExpected(admission, step.decision, step.peek, atMs), name).toEqual(
          step.decision,
        );
        continue;
      }
      const answered = step.admit.map((request, i) => {
        const admission = admitRequest(countsOf(request.subject, atMs), request.quota, atMs);
        const expected = step.decisions[i] as ExpectedDecision;
        return decisionAsExpected(admission, expected, request as SubjectRequest, atMs);
      });
      expect(answered, name).toEqual(step.decisions);
    }
  });
});
