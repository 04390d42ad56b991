/**
 * Where the server reads the time it must be able to move in a test: rate-limit windows and bans,
 * the key cache's recheck period, load shedding's waits. Milliseconds; only a test gives a server
 * one of its own (testing/test-clock.ts), to cross a minute, a ban or a period at once
 * rather than wait for it. Nothing in production can set one: no variable, no flag.
 */
export interface Clock {
  now(): number;
}

/**
 * The clocks a server reads when no test gives it one. Windows are on the wall clock (epoch
 * milliseconds): instances sharing counts through Redis must agree on which minute it is.
 * Periods are on the monotonic clock, which a step of the wall clock (NTP) cannot stretch: a
 * revoked key stays refused within its period, a request waits no longer than its limit.
 */
export const SYSTEM_CLOCKS: { readonly windows: Clock; readonly periods: Clock } = {
  windows: { now: () => Date.now() },
  periods: { now: () => performance.now() },
};
