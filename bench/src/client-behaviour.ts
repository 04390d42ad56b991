/**
 * How a closed-loop client goes on after an answer. `naive` sends its next request at once,
 * as autocannon does; `polite` waits out a 503's Retry-After, as @animal-store/client does.
 */
export type ClientBehaviour = 'naive' | 'polite';

/**
 * The first backoff ceiling of @animal-store/client (`baseDelayMs`), for a 503 without a
 * readable Retry-After.
 */
const FIRST_BACKOFF_CEILING_MS = 250;

/** Retry-After in ms: delay-seconds only, which is what the servers under test send. */
export function retryAfterMs(value: string | undefined): number | undefined {
  const text = value?.trim();
  return text !== undefined && /^\d+$/.test(text) ? Number(text) * 1000 : undefined;
}

/**
 * Milliseconds before the connection's next request. A polite client waits a 503's Retry-After
 * and a random part of it again (packages/client/src/retry.ts, nextRetryDelay), so that the
 * clients shed together do not all come back together.
 */
export function pauseBeforeNext(
  behaviour: ClientBehaviour,
  status: number | undefined,
  retryAfter: string | undefined,
  random: () => number = Math.random,
): number {
  if (behaviour === 'naive' || status !== 503) return 0;
  const wait = retryAfterMs(retryAfter);
  return wait === undefined
    ? Math.floor(random() * FIRST_BACKOFF_CEILING_MS)
    : Math.floor(wait * (1 + random()));
}
