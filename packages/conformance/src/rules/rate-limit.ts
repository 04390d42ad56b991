import { petsContract } from '@animal-store/contract';
import { budgetOf } from '../budget.js';
import {
  expectBody,
  expectError,
  expectHeader,
  expectStatus,
  expectThat,
} from '../expectations.js';
import type { Exchange } from '../http/exchange.js';
import { ANONYMOUS_LIMITS, PLAN_LIMITS, PLANS } from '../options.js';
import { type Probe, type RuleGroup, skip } from '../rule.js';

interface RateLimitHeaders {
  readonly limit: number;
  readonly remaining: number;
  /** Unix seconds. */
  readonly reset: number;
}

const WHOLE_NUMBER = /^(0|[1-9][0-9]*)$/;
const SECONDS_PER_MINUTE = 60;
const SECONDS_PER_DAY = 86_400;
/**
 * How far an answer's `Date` may stray from the clock that set its reset, either way: `Date` is
 * whole seconds, Node refreshes the `Date` it sends on a timer, which fires late on a busy
 * server, and an answer may be written a moment after its request was counted (a wait for room,
 * a slow query), in the next minute. A minute's reset may so lie a little more than 60 s after
 * `Date`, or just before it; a day's lies minutes after it (the last minute of the day aside,
 * when both reset at once).
 */
const DATE_SLACK_SECONDS = 5;

function wholeNumberHeader(exchange: Exchange, name: string): number {
  const value = expectHeader(exchange, name);
  expectThat(WHOLE_NUMBER.test(value), `${name}: ${value} is not a whole number`, exchange);
  return Number(value);
}

/** Seconds from the answer's `Date` (the deployment's clock, not the check's) to `reset`. */
function secondsUntil(exchange: Exchange, reset: number): number | undefined {
  const date = Date.parse(exchange.response.headers.date ?? '');
  return Number.isNaN(date) ? undefined : reset - Math.floor(date / 1000);
}

/** The headers, consistent with each other and with the answer's `Date`. */
export function rateLimitHeaders(exchange: Exchange): RateLimitHeaders {
  const limit = wholeNumberHeader(exchange, 'X-RateLimit-Limit');
  const remaining = wholeNumberHeader(exchange, 'X-RateLimit-Remaining');
  const reset = wholeNumberHeader(exchange, 'X-RateLimit-Reset');
  expectThat(
    remaining <= limit,
    `X-RateLimit-Remaining ${remaining} is above the limit ${limit}`,
    exchange,
  );
  const untilReset = secondsUntil(exchange, reset);
  expectThat(
    untilReset === undefined ||
      (untilReset >= -DATE_SLACK_SECONDS && untilReset <= SECONDS_PER_DAY + DATE_SLACK_SECONDS),
    `X-RateLimit-Reset is ${untilReset} s after the answer's Date, not within the day window`,
    exchange,
  );
  return { limit, remaining, reset };
}

type Window = 'perMinute' | 'perDay';

/**
 * The windows the headers may describe: the day's when it resets in over a minute (give or take
 * the slack of `Date`); the minute's otherwise, or either in the last minute of the day, when both
 * reset at once.
 */
function windowsOf(exchange: Exchange, { reset }: RateLimitHeaders): Window[] {
  const untilReset = secondsUntil(exchange, reset);
  if (untilReset === undefined) return ['perMinute', 'perDay'];
  if (untilReset > SECONDS_PER_MINUTE + DATE_SLACK_SECONDS) return ['perDay'];
  return reset % SECONDS_PER_DAY === 0 ? ['perMinute', 'perDay'] : ['perMinute'];
}

const WINDOW_NAME: Record<Window, string> = { perMinute: 'per minute', perDay: 'per day' };

const countedPerIp = ({ request }: Exchange) =>
  budgetOf({ credential: request.credential, target: request.url }) === 'ip';

function expectPlanLimit(
  exchange: Exchange,
  limits: { readonly perMinute: number; readonly perDay: number },
  whose: string,
): void {
  const headers = rateLimitHeaders(exchange);
  const windows = windowsOf(exchange, headers);
  const expected = windows.map((window) => `${limits[window]} ${WINDOW_NAME[window]}`);
  expectThat(
    windows.some((window) => limits[window] === headers.limit),
    `X-RateLimit-Limit ${headers.limit} is not ${whose}'s ${expected.join(' or ')}`,
    exchange,
  );
}

function notePlanSeen(probe: Probe, keyed: readonly Exchange[]): void {
  const last = keyed.at(-1);
  if (last === undefined) return;
  const headers = rateLimitHeaders(last);
  const [window = 'perMinute'] = windowsOf(last, headers);
  const plan = PLANS.find((name) => PLAN_LIMITS[name]?.[window] === headers.limit);
  probe.observed.note(
    'Rate limit of the key',
    `X-RateLimit-Limit ${headers.limit} ${WINDOW_NAME[window]}: ${plan ? `the ${plan} plan's` : "an enterprise key's own numbers, or a changed plan table"}`,
  );
}

/** Enough to find the 429 of a window, short of what would take long or spend a day. */
const MAX_REQUESTS_TO_SPEND = 1000;
const SPENDING_REQUEST = { method: 'GET', target: '/v1/pets?limit=1' } as const;

function expectRateLimited(exchange: Exchange): void {
  expectError(exchange, 'rate_limited');
  expectBody(exchange, petsContract.listPets.responses[429]);
  const retryAfter = expectHeader(exchange, 'Retry-After');
  expectThat(
    WHOLE_NUMBER.test(retryAfter) && Number(retryAfter) >= 1,
    `Retry-After: ${retryAfter} is not a whole number of seconds, at least 1`,
    exchange,
  );
  const { remaining } = rateLimitHeaders(exchange);
  expectThat(remaining === 0, `X-RateLimit-Remaining is ${remaining} on a 429`, exchange);
}

/**
 * Sends until the 429, stopping short of what a conforming deployment would have refused: the
 * window's limit, plus one window that may begin while it spends.
 */
async function spendToRateLimit(probe: Probe): Promise<void> {
  let exchange = await probe.send(SPENDING_REQUEST);
  const first = rateLimitHeaders(exchange);
  if (!windowsOf(exchange, first).includes('perMinute')) {
    skip('the binding window is the day: a 429 would stop the key until 00:00 UTC');
  }
  if (first.remaining > MAX_REQUESTS_TO_SPEND) {
    skip(`${first.remaining} requests remain in the minute, more than ${MAX_REQUESTS_TO_SPEND}`);
  }
  const most = first.remaining + first.limit + 1;
  for (let sent = 1; exchange.response.status !== 429; sent++) {
    expectStatus(exchange, 200);
    expectThat(
      sent <= most,
      `${sent} requests, within a minute and the next, and no 429`,
      exchange,
    );
    exchange = await probe.send(SPENDING_REQUEST);
  }
  expectRateLimited(exchange);
}

export const rateLimitRules: RuleGroup = {
  name: 'Rate limits',
  rules: [
    {
      name: 'every answer of this run carried X-RateLimit-Limit, -Remaining and -Reset, consistent with each other',
      async check(probe) {
        if (probe.earlierExchanges.length === 0) return skip('no answer to look at');
        for (const exchange of probe.earlierExchanges) rateLimitHeaders(exchange);
      },
    },
    {
      name: "answers without a valid key are counted on the Free plan's numbers",
      async check(probe) {
        const anonymous = probe.earlierExchanges.filter(countedPerIp);
        if (anonymous.length === 0) return skip('no request of this run went without a key');
        for (const exchange of anonymous)
          expectPlanLimit(exchange, ANONYMOUS_LIMITS, 'the Free plan');
      },
    },
    {
      name: "answers to the key show its plan's limits (--plan)",
      async check(probe) {
        const keyed = probe.earlierExchanges.filter((exchange) => !countedPerIp(exchange));
        notePlanSeen(probe, keyed);
        const { plan, perMinute, perDay } = probe.options;
        if (plan === undefined) return skip('no --plan given');
        const limits =
          PLAN_LIMITS[plan] ??
          (perMinute !== undefined && perDay !== undefined ? { perMinute, perDay } : undefined);
        if (limits === undefined) {
          return skip(
            "an enterprise key's numbers are its own: give them with --per-minute and --per-day",
          );
        }
        const whose = PLAN_LIMITS[plan] ? `the ${plan} plan` : 'the enterprise key';
        for (const exchange of keyed) expectPlanLimit(exchange, limits, whose);
      },
    },
  ],
};

/** Last of all: it leaves the key out of requests for the rest of its minute. */
export const rateLimitSpendingRules: RuleGroup = {
  name: 'Rate limits: the 429',
  rules: [
    {
      name: 'over the limit, the key is answered 429 rate_limited with Retry-After (spends the rest of its minute)',
      needs: 'spend-rate-limit',
      check: spendToRateLimit,
    },
  ],
};
