/**
 * The mock's time: rate-limit windows, bans, Idempotency-Key lifetimes and the `Date` header all
 * read it, so a test moves past a 429 or a ban by advancing it instead of waiting.
 */
export interface MockClock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /** Moves the clock forward by `ms` (not below zero). */
  advance(ms: number): void;
}

function checkedStep(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`a clock moves forward only: advance(${ms})`);
  }
  return ms;
}

/** Real time, plus whatever `advance` added. The default. */
export function systemClock(): MockClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms) {
      offset += checkedStep(ms);
    },
  };
}

/**
 * Time that moves only when `advance` moves it, from `start` (default: the start of the current
 * UTC minute, so that a test has the whole minute before a window rolls over).
 */
export function manualClock(start?: Date | number): MockClock {
  let now = start === undefined ? Math.floor(Date.now() / 60_000) * 60_000 : Number(start);
  return {
    now: () => now,
    advance(ms) {
      now += checkedStep(ms);
    },
  };
}
