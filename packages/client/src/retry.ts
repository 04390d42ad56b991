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
  /**
   * Retry throttling, as gRPC clients do it: each attempt that failed in a way worth retrying
   * (a network error, 429, 502, 503, 504) takes a token, each answer that did not puts back
   * `tokenRatio` of one, and a call is retried only while more than half of `maxTokens` remain.
   * So a client whose calls keep failing stops retrying them, and a fleet of clients does not
   * turn a server's overload into a storm. `false` retries whatever the failures. Default
   * `{ maxTokens: 10, tokenRatio: 0.1 }`.
   */
  retryBudget?: RetryBudgetOptions | false;
  /** Waits `ms` milliseconds, or rejects when `signal` aborts. Replaceable in tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  random?: () => number;
  /** The current time in milliseconds, to measure a call's elapsed time. Default `Date.now`. */
  now?: () => number;
}

export interface RetryBudgetOptions {
  maxTokens: number;
  tokenRatio: number;
}

export type RetryPolicy = Required<Omit<RetryOptions, 'retryBudget'>> & {
  retryBudget: RetryBudgetOptions | false;
};

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
    retryBudget: given.retryBudget ?? { maxTokens: 10, tokenRatio: 0.1 },
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
    // A server shedding load tells all its clients one Retry-After: each waits it and a random
    // part of it again, so that they do not all come back at once.
    const { retryAfterMs } = outcome;
    delay =
      retryAfterMs === undefined
        ? backoffDelay(policy, attempt)
        : Math.floor(retryAfterMs * (1 + policy.random()));
  } else {
    return undefined;
  }
  if (outcome.kind === 'response' && (outcome.retryAfterMs ?? 0) > policy.maxRetryAfterMs) {
    return undefined;
  }
  return elapsedMs + delay > policy.maxElapsedMs ? undefined : delay;
}

/** Whether an attempt failed in a way the client retries: what the retry budget counts. */
export function isRetryableFailure(outcome: AttemptOutcome): boolean {
  return (
    outcome.kind === 'network-error' ||
    outcome.status === 429 ||
    UNAVAILABLE_STATUSES.has(outcome.status)
  );
}

/**
 * gRPC's retry throttling (A6): the tokens of one client, shared by all its calls. A failure
 * worth retrying takes one, any other answer puts back `tokenRatio`; retries are allowed while
 * more than half of `maxTokens` remain. Without a budget, every retry is allowed.
 */
export function createRetryBudget(options: RetryBudgetOptions | false) {
  if (options === false) return { record: () => {}, allowsRetry: () => true };
  const { maxTokens, tokenRatio } = options;
  let tokens = maxTokens;
  return {
    record(outcome: AttemptOutcome): void {
      tokens = isRetryableFailure(outcome)
        ? Math.max(0, tokens - 1)
        : Math.min(maxTokens, tokens + tokenRatio);
    },
    allowsRetry: (): boolean => tokens > maxTokens / 2,
  };
}

export type RetryBudget = ReturnType<typeof createRetryBudget>;
