/** What the check is told about the deployment, and how far it may go. */

import { ANONYMOUS_QUOTA, PLAN_QUOTAS } from '@animal-store/contract';
import type { ApiUnderTest } from './api-under-test.js';
import type { RateLimitWait } from './pacing.js';

/** The numbers of each plan (docs/interface.md, "Plans"); an enterprise key has its own. */
export const PLAN_LIMITS = { ...PLAN_QUOTAS, enterprise: undefined } as const;

/** The plan of an API key (docs/interface.md, "Plans"). */
export type Plan = keyof typeof PLAN_LIMITS;

export const PLANS = Object.keys(PLAN_LIMITS) as Plan[];

/** Requests without a valid key are counted per client IP on these numbers. */
export const ANONYMOUS_LIMITS = ANONYMOUS_QUOTA;

/** What to check, and how far the check may go. */
export interface ConformanceOptions {
  /** The deployment's origin, e.g. `https://api.animal-store.example` (a trailing `/v1` is dropped). */
  readonly baseUrl: string;
  /** An API key of the deployment; it only appears in reports as `$ANIMAL_STORE_KEY`. */
  readonly key: string;
  /** Add the rules that create pets (creates, idempotency, paging under inserts): never in production. */
  readonly allowWrites?: boolean;
  /** The key's plan, whose numbers `X-RateLimit-Limit` must show. Unchecked when undefined. */
  readonly plan?: Plan;
  /** On the enterprise plan, the key's own requests per UTC minute. */
  readonly perMinute?: number;
  /** On the enterprise plan, the key's own requests per UTC day. */
  readonly perDay?: number;
  /**
   * A key of the deployment that was revoked: requests with it must be refused. It only appears in
   * reports as `$ANIMAL_STORE_REVOKED_KEY`. The rule is skipped when undefined.
   */
  readonly revokedKey?: string;
  /**
   * A browser origin the deployment allows (`CORS_ORIGINS`), e.g. `https://shop.example.com`: its
   * preflights must be answered. Undefined, only what holds for origins it does not allow is checked.
   */
  readonly origin?: string;
  /** Add the rule that drives the key to 429, which spends the rest of its minute. */
  readonly spendRateLimit?: boolean;
  /**
   * The API the deployment serves: its contract and its operations' examples, the Animal Store's
   * v1 unless given. For a deployment of an API built like v1 (a resource of its own beside the
   * pets), whose every operation the rules stated for each one then walk.
   */
  readonly api?: ApiUnderTest;
  /**
   * How the run waits for a rate-limit window to end when its own requests have spent the minute
   * (the key's, or the calling IP's): resolves after `ms` milliseconds, `setTimeout` unless given.
   * A test of a deployment whose clock it holds (the mock's) moves that clock instead.
   */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told before each such wait, as it begins (the command prints it). */
  readonly onWait?: (wait: RateLimitWait) => void;
}

/** The origin of `baseUrl`: the contract's paths carry `/v1` themselves. */
export function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}
