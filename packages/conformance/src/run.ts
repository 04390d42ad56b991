import {
  type Exchange,
  NoAnswer,
  type RecordedRequest,
  type RecordedResponse,
  send,
} from './http/exchange.js';
import { ObservedSettings } from './observed.js';
import { type ConformanceOptions, originOf } from './options.js';
import { type Permission, type Probe, type Rule, RuleSkipped, RuleViolation } from './rule.js';
import { RULE_GROUPS } from './rule-groups.js';

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

export interface RuleReport {
  readonly group: string;
  readonly rule: string;
  readonly outcome: RuleOutcome;
}

export interface ConformanceReport {
  readonly baseUrl: string;
  readonly allowWrites: boolean;
  readonly plan: ConformanceOptions['plan'];
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

/** Runs every rule the options allow against the deployment, one request at a time. */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const baseUrl = originOf(options.baseUrl);
  const sent: Exchange[] = [];
  const observed = new ObservedSettings();
  const rules: RuleReport[] = [];
  for (const group of RULE_GROUPS) {
    for (const rule of group.rules) {
      const probe: Probe = {
        options: { ...options, baseUrl },
        earlierExchanges: [...sent],
        observed,
        async send(request) {
          const exchange = await send(baseUrl, options.key, request);
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
