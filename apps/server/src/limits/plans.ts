/** Requests a client may make per UTC calendar minute and per UTC calendar day. */
export interface Quota {
  perMinute: number;
  perDay: number;
}

export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** The seed's plan table. Enterprise quotas are custom, so they live on each key instead. */
export const PLAN_QUOTAS: Record<Exclude<PlanName, 'enterprise'>, Quota> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/** Requests without a valid key are held to the Free plan's numbers, per client IP. */
export const ANONYMOUS_PLAN = 'free' satisfies PlanName;
export const ANONYMOUS_QUOTA = PLAN_QUOTAS[ANONYMOUS_PLAN];
