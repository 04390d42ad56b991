/**
 * Ends the process with `code` the way Node ends one on its own: once nothing is left to do.
 *
 * `process.exit()` can deadlock. While V8 compiles hot code on its worker threads, a compile job
 * may wait for a garbage collection that only the main thread runs, and `process.exit()` joins
 * those threads without running it (nodejs/node#54918). Under load, the key command hung that
 * way about once in a hundred runs. A natural exit tears V8 down in order and cannot hang so.
 *
 * Whatever still holds the event loop `graceMs` later is a leak of ours; the process exits
 * anyway rather than hang.
 */
export function exitWhenIdle(code: number, graceMs = 5_000): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), graceMs).unref();
}
