import type { Clock } from '../src/clock.js';

/** 12:00:00 UTC on a Tuesday: a whole minute, hour and day ahead before any window rolls over. */
export const TEST_CLOCK_START = Date.UTC(2026, 2, 10, 12, 0, 0);

/**
 * The clock a test server reads (src/clock.ts): it stands still until the test moves it, so a
 * minute window, a ban or the key recheck period ends exactly when the test says, and never
 * because the machine was slow.
 */
export class TestClock implements Clock {
  #ms: number;

  constructor(start: number = TEST_CLOCK_START) {
    this.#ms = start;
  }

  now(): number {
    return this.#ms;
  }

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a clock moves forward only: ${ms}`);
    this.#ms += ms;
  }

  /** Sets the clock to `ms` since the epoch, forward or back (a test may replay a moment). */
  set(ms: number): void {
    this.#ms = ms;
  }
}
