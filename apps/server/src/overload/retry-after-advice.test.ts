import { describe, expect, it } from 'vitest';
import { LONGEST_RETRY_AFTER_SECONDS, RetryAfterAdvice } from './retry-after-advice.js';

/** One second of `served` requests answered and `shed` clients shed; the advice after it. */
function second(advice: RetryAfterAdvice, clock: { ms: number }, served: number, shed: number) {
  for (let i = 0; i < served; i += 1) advice.served(clock.ms + (i * 1000) / served);
  for (let i = 0; i < shed; i += 1) advice.shed(clock.ms + (i * 1000) / shed);
  clock.ms += 1000;
  advice.served(clock.ms);
  return advice.seconds;
}

describe('the Retry-After advised', () => {
  it('is 1 s while few of the clients that waited as told are shed again', () => {
    const advice = new RetryAfterAdvice();
    const clock = { ms: 0 };
    expect(advice.seconds).toBe(1);
    for (const shed of [0, 100, 1_000]) expect(second(advice, clock, 10_000, shed)).toBe(1);
  });

  it('grows a second at a time while they are more than a tenth of those served, up to its most', () => {
    const advice = new RetryAfterAdvice();
    const clock = { ms: 0 };
    expect([1, 2, 3].map(() => second(advice, clock, 5_000, 2_500))).toEqual([2, 3, 4]);
    for (let i = 0; i < 40; i += 1) second(advice, clock, 5_000, 2_500);
    expect(advice.seconds).toBe(LONGEST_RETRY_AFTER_SECONDS);
  });

  it('holds between a fortieth and a tenth, and shrinks back below', () => {
    const advice = new RetryAfterAdvice();
    const clock = { ms: 0 };
    for (let i = 0; i < 3; i += 1) second(advice, clock, 5_000, 2_500);
    expect(second(advice, clock, 5_000, 400)).toBe(4);
    expect([1, 2, 3, 4].map(() => second(advice, clock, 5_000, 10))).toEqual([3, 2, 1, 1]);
  });

  it('starts again from 1 s once shedding is over', () => {
    const advice = new RetryAfterAdvice();
    const clock = { ms: 0 };
    for (let i = 0; i < 3; i += 1) second(advice, clock, 5_000, 2_500);
    advice.reset();
    expect(advice.seconds).toBe(1);
  });
});
