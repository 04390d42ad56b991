/**
 * Waits until at least `seconds` remain in the current UTC minute, so a burst of requests
 * against a per-minute limit stays in one window. Only for server processes, which read the wall
 * clock: a server in the test's process takes a TestClock (testing/test-clock.ts) instead.
 */
export async function awayFromMinuteEnd(seconds: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
