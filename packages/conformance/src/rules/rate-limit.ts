import { contract } from '@animal-store/contract';
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
const SECONDS_PER_DAY = 86_400;

function wholeNumberHeader(exchange: Exchange, name: string): number {
  const value = expectHeader(exchange, name);
  expectThat(WHOLE_NUMBER.test(value), `${name}: ${value} is not a whole number`, exchange);
  return Number(value);
}

/** The headers, consistent with each other and with the answer's `Date`. */
function rateLimitHeaders(exchange: Exchange): RateLimitHeaders {
  const limit = wholeNumberHeader(exchange, 'X-RateLimit-Limit');
  const remaining = wholeNumberHeader(exchange, 'X-RateLimit-Remaining');
  const reset = wholeNumberHeader(exchange, 'X-RateLimit-Reset');
  expectThat(
    remaining <= limit,
    `X-RateLimit-Remaining ${remaining} is above the limit ${limit}`,
    exchange,
  );
  // The deployment's own clock, so that the check's clock being off does not matter.
  const date = Date.parse(exchange.response.headers.date ?? '');
  if (!Number.isNaN(date)) {
    const untilReset = reset - Math.floor(date / 1000);
    expectThat(
      untilReset >= 0 && untilReset <= SECONDS_PER_DAY,
      `X-RateLimit-Reset is ${untilReset} s after the answer's Date, not within the day window`,
      exchange,
    );
  }
  return { limit, remaining, reset };
}

/** Documents are counted per client IP even with a key (docs/interface.md, "Who is counted"). */
const countedPerIp = (exchange: Exchange) =>
  exchange.request.credential !== 'key' ||
  /\/(v1\/openapi\.json|docs)\b/.test(exchange.request.url);

function expectLimitOneOf(
  exchange: Exchange,
  limits: { readonly perMinute: number; readonly perDay: number },
  whose: string,
): void {
  const { limit } = rateLimitHeaders(exchange);
  expectThat(
    limit === limits.perMinute || limit === limits.perDay,
    `X-RateLimit-Limit ${limit} is neither ${whose}'s ${limits.perMinute} per minute nor its ${limits.perDay} per day`,
    exchange,
  );
}

function notePlanSeen(probe: Probe, keyed: readonly Exchange[]): void {
  const last = keyed.at(-1);
  if (last === undefined) return;
  const limit = Number(last.response.headers['x-ratelimit-limit']);
  const plan = PLANS.find((name) => {
    const limits = PLAN_LIMITS[name];
    return limits !== undefined && (limits.perMinute === limit || limits.perDay === limit);
  });
  probe.observed.note(
    'Rate limit of the key',
    `X-RateLimit-Limit ${limit} (${plan ? `the ${plan} plan's` : 'an enterprise key of its own numbers, or a changed plan table'})`,
  );
}

/** Enough to find the 429 of a window, short of what would take long or spend a day. */
const MAX_REQUESTS_TO_SPEND = 1000;
const SECONDS_PER_MINUTE = 60;

const SPENDING_REQUEST = { method: 'GET', target: '/v1/pets?limit=1' } as const;

function expectRateLimited(exchange: Exchange): void {
  expectError(exchange, 'rate_limited');
  expectBody(exchange, contract.pets.listPets.responses[429]);
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
  const date = Math.floor(Date.parse(exchange.response.headers.date ?? '') / 1000);
  if (first.reset - date > SECONDS_PER_MINUTE) {
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
          expectLimitOneOf(exchange, ANONYMOUS_LIMITS, 'the Free plan');
      },
    },
    {
      name: "answers to the key show its plan's limits (--plan)",
      async check(probe) {
        const keyed = probe.earlierExchanges.filter((exchange) => !countedPerIp(exchange));
        notePlanSeen(probe, keyed);
        const { plan } = probe.options;
        if (plan === undefined) return skip('no --plan given');
        const limits = PLAN_LIMITS[plan];
        if (limits === undefined) return skip("an enterprise key's numbers are its own");
        for (const exchange of keyed) expectLimitOneOf(exchange, limits, `the ${plan} plan`);
      },
    },
    {
      name: 'over the limit, the key is answered 429 rate_limited with Retry-After (spends the rest of its minute)',
      needs: 'spend-rate-limit',
      check: spendToRateLimit,
    },
  ],
};
