/**
 * The rate-limit plans of v1 (docs/interface.md, "Plans"): what `X-RateLimit-Limit` shows, and
 * what the server, the mock and the conformance check each count or expect.
 */

/** Requests a client may make per UTC calendar minute and per UTC calendar day. */
export interface Quota {
  /** Requests per UTC calendar minute. */
  readonly perMinute: number;
  /** Requests per UTC calendar day. */
  readonly perDay: number;
}

export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;

/** The plan of an API key. */
export type PlanName = (typeof PLAN_NAMES)[number];

/** The plan table. An enterprise key's numbers are its own, agreed per key, so not here. */
export const PLAN_QUOTAS = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
} as const satisfies Record<Exclude<PlanName, 'enterprise'>, Quota>;

/** Requests without a valid key are counted per client IP on the Free plan's numbers. */
export const ANONYMOUS_QUOTA: Quota = PLAN_QUOTAS.free;
