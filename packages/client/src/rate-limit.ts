/** The rate-limit window that bound the last response, as its `X-RateLimit-*` headers said. */
export interface RateLimitState {
  /** `X-RateLimit-Limit`: requests allowed in the binding window. */
  readonly limit: number;
  /** `X-RateLimit-Remaining`: requests left in it (never below 0). */
  readonly remaining: number;
  /** `X-RateLimit-Reset`: Unix time, in seconds, at which the window resets. */
  readonly reset: number;
}

function wholeNumber(text: string | null): number | undefined {
  if (text === null || !/^\s*\d+\s*$/.test(text)) return undefined;
  return Number(text);
}

/** The state carried by `headers`, or undefined when any of the three headers is missing. */
export function readRateLimit(headers: Headers): RateLimitState | undefined {
  const limit = wholeNumber(headers.get('x-ratelimit-limit'));
  const remaining = wholeNumber(headers.get('x-ratelimit-remaining'));
  const reset = wholeNumber(headers.get('x-ratelimit-reset'));
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, reset };
}
