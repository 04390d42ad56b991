/**
 * The interface's numbers that the contract does not export. Each is defined here once, from
 * docs/interface.md (the section named beside it); the contract's own (the plan table, PAGE_SIZE,
 * MAX_INTEGER_ID) are imported from it, and the rules' (the windows, the ban, the Idempotency-Key
 * lifetime) live in @animal-store/contract/rules with the code that reads them.
 */

import type { PlanName, Quota } from '@animal-store/contract';

export { ANONYMOUS_QUOTA, PLAN_QUOTAS, type Quota } from '@animal-store/contract';

/** A key's plan: one of the table's, or `enterprise` with its own numbers. */
export type Plan = PlanName;

/**
 * The mock's enterprise key: numbers of its own, as an enterprise key has, small enough that a
 * test reaches its 429 quickly and unlike any plan's, so that a test can tell them apart.
 */
export const ENTERPRISE_QUOTA: Quota = { perMinute: 120, perDay: 50_000 };

/** docs/interface.md, "Size limits and bodies": a body of exactly this many bytes is read. */
export const MAX_BODY_BYTES = 16 * 1024;

/** docs/interface.md, "Size limits and bodies": request headers, as sent. */
export const MAX_HEADER_BYTES = 16 * 1024;
