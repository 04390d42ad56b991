/**
 * The run keeps within the rate limits it checks, so that no rule is refused for the requests the
 * rules before it sent, however many those are. Each answer's `X-RateLimit-Remaining` and
 * `-Reset` say where its budget stands (the key's or the calling IP's); before a request whose
 * budget the answers show spent, the run waits for the minute to end, by the deployment's clock.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ERROR_STATUS, ErrorBodySchema, type ErrorCode } from '@animal-store/contract';
import { budgetOf, type RateLimitBudget } from './budget.js';
import type { Exchange, RequestSpec } from './http/exchange.js';
import type { ConformanceOptions } from './options.js';
import type { Rule } from './rule.js';

/** A pause the run made for a rate-limit window to end, rather than be refused. */
export interface RateLimitWait {
  /** Whose minute was spent: the key's, or the calling IP's (requests without a valid key). */
  readonly budget: RateLimitBudget;
  /** How long the run waits. */
  readonly seconds: number;
  /** The rule whose next request waits. */
  readonly rule: string;
}

/** Where a budget stood at the answers of its window, by the deployment's own numbers. */
interface Standing {
  readonly remaining: number;
  /** Unix seconds: the end of the window the answers describe. */
  readonly reset: number;
}

const SECONDS_PER_MINUTE = 60;
/**
 * A reset farther away than a minute (and this slack for a `Date` that lags) is the day's: the
 * run does not wait hours, its request meets the 429 and its rule says when to run again.
 */
const DATE_SLACK_SECONDS = 5;
/** Past the reset by this much: instances, and their shared counter, keep clocks a little apart. */
const MARGIN_SECONDS = 1;

/**
 * Refusals that may come before the rate limit (docs/interface.md, "Order of checks", steps 1
 * and 2), uncounted, with the calling IP's `X-RateLimit-*` whatever the credential; or after it
 * (step 4), counted and with the key's.
 */
const MAYBE_BEFORE_COUNTING: readonly ErrorCode[] = [
  'malformed_request',
  'headers_too_large',
  'service_unavailable',
];
const MAYBE_BEFORE_COUNTING_STATUSES: ReadonlySet<number> = new Set(
  MAYBE_BEFORE_COUNTING.map((code) => ERROR_STATUS[code]),
);

const WHOLE_NUMBER = /^(0|[1-9][0-9]*)$/;

function wholeNumber(value: string | undefined): number | undefined {
  return value !== undefined && WHOLE_NUMBER.test(value) ? Number(value) : undefined;
}

function standingShown({ response }: Exchange): Standing | undefined {
  const remaining = wholeNumber(response.headers['x-ratelimit-remaining']);
  const reset = wholeNumber(response.headers['x-ratelimit-reset']);
  return remaining === undefined || reset === undefined ? undefined : { remaining, reset };
}

/** The answer's `Date` in Unix seconds: the deployment's clock, not the check's. */
function dateOf({ response }: Exchange): number | undefined {
  const date = Date.parse(response.headers.date ?? '');
  return Number.isNaN(date) ? undefined : Math.floor(date / 1000);
}

function maybeRefusedBeforeCounting({ response }: Exchange): boolean {
  if (!MAYBE_BEFORE_COUNTING_STATUSES.has(response.status)) return false;
  try {
    const parsed = ErrorBodySchema.safeParse(JSON.parse(response.body));
    return parsed.success && MAYBE_BEFORE_COUNTING.includes(parsed.data.code);
  } catch {
    return false;
  }
}

const WHOSE: Record<RateLimitBudget, string> = {
  key: "the key's requests",
  ip: "this IP's requests (those without a valid key, and the documents)",
};

/** A wait as the command prints it. */
export function describeWait({ budget, seconds, rule }: RateLimitWait): string {
  return `Waiting ${seconds} s for the next minute: ${WHOSE[budget]} in this one are spent (next: ${rule})`;
}

/** The run's requests, held back while their budget's minute is spent. */
export class Pacer {
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #onWait: ((wait: RateLimitWait) => void) | undefined;
  readonly #standings = new Map<RateLimitBudget, Standing>();
  /** The deployment's time, Unix seconds: its latest answer's `Date`, moved on by each wait. */
  #now: number | undefined;

  constructor({ sleep = delay, onWait }: Pick<ConformanceOptions, 'sleep' | 'onWait'>) {
    this.#sleep = sleep;
    this.#onWait = onWait;
  }

  /**
   * Sends a rule's request with `transmit`, first waiting for the next minute when its budget's is
   * spent: except for the rule that drives the key to its 429 on purpose.
   */
  async send(
    rule: Rule,
    request: RequestSpec,
    transmit: () => Promise<Exchange>,
  ): Promise<Exchange> {
    const budget = budgetOf(request);
    if (rule.needs !== 'spend-rate-limit') await this.#roomIn(budget, rule.name);
    const exchange = await transmit();
    this.#note(budget, exchange);
    return exchange;
  }

  async #roomIn(budget: RateLimitBudget, rule: string): Promise<void> {
    const standing = this.#standings.get(budget);
    if (standing === undefined || standing.remaining > 0) return;
    const untilReset = this.#now === undefined ? SECONDS_PER_MINUTE : standing.reset - this.#now;
    if (untilReset > SECONDS_PER_MINUTE + DATE_SLACK_SECONDS) return;
    this.#standings.delete(budget);
    const seconds = untilReset + MARGIN_SECONDS;
    if (seconds <= 0) return;
    this.#onWait?.({ budget, seconds, rule });
    await this.#sleep(seconds * 1000);
    if (this.#now !== undefined) this.#now += seconds;
  }

  /**
   * Within a window, the lowest standing shown holds: instances that count apart each show their
   * own, and the first to run out refuses. An earlier window's answer says nothing new. A key's
   * request refused before the rate limit may show the IP's standing instead: it spent at most
   * itself of the key's.
   */
  #note(budget: RateLimitBudget, exchange: Exchange): void {
    this.#now = dateOf(exchange) ?? this.#now;
    const shown = standingShown(exchange);
    if (shown === undefined) return;
    const known = this.#standings.get(budget);
    const maybeTheIps = budget === 'key' && maybeRefusedBeforeCounting(exchange);
    if (known === undefined || shown.reset > known.reset) {
      if (maybeTheIps) this.#standings.delete(budget);
      else this.#standings.set(budget, shown);
      return;
    }
    if (shown.reset < known.reset) return;
    const floor = maybeTheIps ? known.remaining - 1 : 0;
    const remaining = Math.min(known.remaining, Math.max(shown.remaining, floor));
    this.#standings.set(budget, { ...known, remaining });
  }
}
