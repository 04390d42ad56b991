/** How the client retries. Every field is optional; `retry: false` turns retries off. */
export interface RetryOptions {
  /** Most attempts per call, the first one included. Default 5. */
  maxAttempts?: number;
  /**
   * Most time one call may take, waits included, in milliseconds. A retry whose wait would
   * end after it is not made; the last response (or error) is returned instead. Default 90 000.
   */
  maxElapsedMs?: number;
  /**
   * Longest `Retry-After` the client waits out, in milliseconds. A longer one (a 15-minute
   * ban, say) is not waited for: the 429 is returned at once. Default 60 000, one minute window.
   */
  maxRetryAfterMs?: number;
  /** Ceiling of the first backoff, in milliseconds; it doubles with every retry. Default 250. */
  baseDelayMs?: number;
  /** Largest backoff ceiling, in milliseconds. Default 10 000. */
  maxDelayMs?: number;
  /** Waits `ms` milliseconds, or rejects when `signal` aborts. Replaceable in tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  random?: () => number;
  /** The current time in milliseconds, to measure a call's elapsed time. Default `Date.now`. */
  now?: () => number;
}

export type RetryPolicy = Required<RetryOptions>;

/** Statuses a gateway answers when the service behind it is briefly unreachable. */
const UNAVAILABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function resolveRetryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  const given = options || {};
  return {
    maxAttempts: options === false ? 1 : (given.maxAttempts ?? 5),
    maxElapsedMs: given.maxElapsedMs ?? 90_000,
    maxRetryAfterMs: given.maxRetryAfterMs ?? 60_000,
    baseDelayMs: given.baseDelayMs ?? 250,
    maxDelayMs: given.maxDelayMs ?? 10_000,
    sleep: given.sleep ?? sleep,
    random: given.random ?? Math.random,
    now: given.now ?? Date.now,
  };
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110, 10.2.3).
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month; bare numbers like "-1" are not dates here.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * Exponential backoff with full jitter: a random wait between 0 and a ceiling that doubles
 * with every retry. The randomness spreads out clients that failed together, so they do not
 * come back together.
 */
export function backoffDelay(policy: RetryPolicy, retry: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(policy.random() * ceiling);
}

export type AttemptOutcome =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly retryAfterMs: number | undefined;
    }
  | { readonly kind: 'network-error' };

/**
 * How long to wait before the next attempt, or undefined to stop. `attempt` counts from 1;
 * `elapsedMs` is the time since the call began.
 */
export function nextRetryDelay(
  policy: RetryPolicy,
  attempt: number,
  elapsedMs: number,
  outcome: AttemptOutcome,
): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  let delay: number;
  if (outcome.kind === 'network-error') {
    delay = backoffDelay(policy, attempt);
  } else if (outcome.status === 429) {
    // The server knows when it will accept again; without a Retry-After, back off.
    delay = outcome.retryAfterMs ?? backoffDelay(policy, attempt);
  } else if (UNAVAILABLE_STATUSES.has(outcome.status)) {
    delay = Math.max(backoffDelay(policy, attempt), outcome.retryAfterMs ?? 0);
  } else {
    return undefined;
  }
  if (outcome.kind === 'response' && (outcome.retryAfterMs ?? 0) > policy.maxRetryAfterMs) {
    return undefined;
  }
  return elapsedMs + delay > policy.maxElapsedMs ? undefined : delay;
}
