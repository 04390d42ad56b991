import { ANIMAL_STORE_V1 } from './api-under-test.js';
import {
  type Exchange,
  NoAnswer,
  type RecordedRequest,
  type RecordedResponse,
  send,
} from './http/exchange.js';
import { ObservedSettings } from './observed.js';
import { type ConformanceOptions, originOf } from './options.js';
import { Pacer } from './pacing.js';
import { type Permission, type Probe, type Rule, RuleSkipped, RuleViolation } from './rule.js';
import { ruleGroupsFor } from './rule-groups.js';

/** What became of a rule: passed, skipped (with why), or failed (with what showed it). */
export type RuleOutcome =
  | { readonly result: 'passed' }
  | { readonly result: 'skipped'; readonly reason: string }
  | {
      readonly result: 'failed';
      readonly reason: string;
      /** The request that showed it; none when no single one did. */
      readonly request?: RecordedRequest;
      /** Its answer; none when it got none. */
      readonly response?: RecordedResponse;
    };

/** One rule of the run and its outcome. */
export interface RuleReport {
  /** The group it is printed under, e.g. `Authentication`. */
  readonly group: string;
  /** What the deployment must do, e.g. `listPets answers 401 without a key, with the challenge`. */
  readonly rule: string;
  readonly outcome: RuleOutcome;
}

/** What a run found: the verdict on each rule, and what it saw of the deployment. */
export interface ConformanceReport {
  /** The origin checked. */
  readonly baseUrl: string;
  /** Whether the rules that create pets ran. */
  readonly allowWrites: boolean;
  /** The plan the key was said to be on. */
  readonly plan: ConformanceOptions['plan'];
  /** Every rule, in the order they ran, skipped ones included. */
  readonly rules: readonly RuleReport[];
  /** What the check noticed of the deployment's settings. */
  readonly observed: readonly (readonly [setting: string, value: string])[];
  /** How many requests the run sent: what it spent of the key's and the IP's budgets. */
  readonly requestsSent: number;
  /** True when no rule failed. */
  readonly passed: boolean;
}

const FLAG_OF: Record<Permission, string> = {
  writes: '--allow-writes',
  'spend-rate-limit': '--spend-rate-limit',
};

function permitted(options: ConformanceOptions, permission: Permission | undefined): boolean {
  if (permission === 'writes') return options.allowWrites === true;
  if (permission === 'spend-rate-limit') return options.spendRateLimit === true;
  return true;
}

async function runRule(rule: Rule, probe: Probe, sent: Exchange[]): Promise<RuleOutcome> {
  if (!permitted(probe.options, rule.needs)) {
    return { result: 'skipped', reason: `needs ${FLAG_OF[rule.needs as Permission]}` };
  }
  const before = sent.length;
  try {
    await rule.check(probe);
    return { result: 'passed' };
  } catch (error) {
    if (error instanceof RuleSkipped) return { result: 'skipped', reason: error.reason };
    if (error instanceof NoAnswer) {
      return { result: 'failed', reason: error.message, request: error.request };
    }
    const exchange =
      error instanceof RuleViolation
        ? error.exchange
        : sent.length > before
          ? sent.at(-1)
          : undefined;
    const reason = error instanceof Error ? error.message : String(error);
    return { result: 'failed', reason, ...exchange };
  }
}

/**
 * Runs every rule the options allow against the deployment, one request at a time, each waiting
 * when the rate limit its answers show is spent (`pacing.ts`).
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const baseUrl = originOf(options.baseUrl);
  const pacer = new Pacer(options);
  const sent: Exchange[] = [];
  const observed = new ObservedSettings();
  const rules: RuleReport[] = [];
  for (const group of ruleGroupsFor(options.api ?? ANIMAL_STORE_V1)) {
    for (const rule of group.rules) {
      const probe: Probe = {
        options: { ...options, baseUrl },
        earlierExchanges: [...sent],
        observed,
        async send(request) {
          const exchange = await pacer.send(rule, request, () => send(baseUrl, options, request));
          sent.push(exchange);
          return exchange;
        },
      };
      rules.push({ group: group.name, rule: rule.name, outcome: await runRule(rule, probe, sent) });
    }
  }
  return {
    baseUrl,
    allowWrites: options.allowWrites === true,
    plan: options.plan,
    rules,
    observed: observed.entries(),
    requestsSent: sent.length,
    passed: rules.every(({ outcome }) => outcome.result !== 'failed'),
  };
}
