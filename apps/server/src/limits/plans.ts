/**
 * The plans the server counts against: the contract's table (@animal-store/contract, "Plans" in
 * docs/interface.md), under the names the server's modules import.
 */
import type { PlanName } from '@animal-store/contract';

export {
  ANONYMOUS_QUOTA,
  PLAN_NAMES,
  PLAN_QUOTAS,
  type PlanName,
  type Quota,
} from '@animal-store/contract';

/** Requests without a valid key are held to the Free plan's numbers, per client IP. */
export const ANONYMOUS_PLAN = 'free' satisfies PlanName;
