import type { ChildProcess } from 'node:child_process';

/**
 * How long a start may take before the test gives up. Beside every other suite on two cores, a
 * start went past 30 s once (a clean-clone run's Node 24 pass); 50 s stays inside the callers'
 * hooks (60-90 s).
 */
const START_LIMIT_MS = 50_000;

/** Polls `/healthz` until it answers 200; says why it gave up (an exit, or no answer in time). */
export async function untilHealthy(
  baseUrl: string,
  child: ChildProcess,
  stop: () => Promise<number | null>,
): Promise<void> {
  const giveUpAt = Date.now() + START_LIMIT_MS;
  for (;;) {
    const ready = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.signalCode ?? `code ${child.exitCode}`;
      await stop();
      throw new Error(`the server did not start: it exited (${how}); its stderr is above`);
    }
    if (Date.now() > giveUpAt) {
      await stop();
      throw new Error(`the server did not start: no 200 from /healthz within ${START_LIMIT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
