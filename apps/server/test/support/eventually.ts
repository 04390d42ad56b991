/**
 * The first value `probe` answers within `timeoutMs`, asking again every quarter second. A probe
 * that throws is asked again too (a server still starting refuses connections); the last problem
 * is in the time-out's message. `hopeless` is asked before each round: a reason it gives (the
 * process being waited for has exited) ends the wait at once.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  what: string,
  hopeless: () => string | undefined = () => undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    const reason = hopeless();
    if (reason !== undefined) throw new Error(`gave up waiting for ${what}: ${reason}`);
    const value = await probe().catch((error: unknown) => {
      lastProblem = String(error);
      return undefined;
    });
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what} (last: ${lastProblem})`);
}
