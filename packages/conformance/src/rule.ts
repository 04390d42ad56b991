import type { Exchange, RequestSpec } from './http/exchange.js';
import type { ObservedSettings } from './observed.js';
import type { ConformanceOptions } from './options.js';

/** What a rule needs beyond reading: rules that need more are skipped unless allowed. */
export type Permission = 'writes' | 'spend-rate-limit';

/** What a rule sees: the deployment to send to, and what the run saw so far. */
export interface Probe {
  readonly options: ConformanceOptions;
  /** Sends a request and records it as this rule's latest exchange. */
  send(request: RequestSpec): Promise<Exchange>;
  /** Every exchange of the run before this rule, in order. */
  readonly earlierExchanges: readonly Exchange[];
  /** What the run has noticed of the deployment's settings; rules add to it. */
  readonly observed: ObservedSettings;
}

export interface Rule {
  /** A sentence saying what the deployment does, e.g. `listPets answers 401 without a key`. */
  readonly name: string;
  readonly needs?: Permission;
  /** Throws a `RuleViolation` when the deployment breaks the rule, a `RuleSkipped` when it cannot tell. */
  check(probe: Probe): Promise<void>;
}

export interface RuleGroup {
  readonly name: string;
  readonly rules: readonly Rule[];
}

/** The deployment broke the rule in this exchange. */
export class RuleViolation extends Error {
  constructor(
    message: string,
    readonly exchange?: Exchange,
  ) {
    super(message);
    this.name = 'RuleViolation';
  }
}

/** The rule cannot be told from this deployment (say, it has too few pets to page through). */
export class RuleSkipped extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'RuleSkipped';
  }
}

export function skip(reason: string): never {
  throw new RuleSkipped(reason);
}
