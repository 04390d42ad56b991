import { z } from 'zod';
import {
  expectBody,
  expectError,
  expectHeader,
  expectStatus,
  expectThat,
} from '../expectations.js';
import type { Exchange, RequestSpec } from '../http/exchange.js';
import { type Probe, type Rule, type RuleGroup, skip } from '../rule.js';
import { rateLimitHeaders } from './rate-limit.js';

/** `{"status":"ok"}`: the probes' answer while the process runs and its database answers. */
const ProbeAnswerSchema = z.object({ status: z.literal('ok') }).strict();

const PROBES = ['/healthz', '/readyz'] as const;

/** Sent as a load balancer sends them: without a key. */
const probeRequest = (method: string, target: string): RequestSpec => ({
  method,
  target,
  credential: 'none',
});

function probeAnswerRule(path: (typeof PROBES)[number]): Rule {
  return {
    name: `GET and HEAD ${path} answer 200 {"status":"ok"} without a key, with X-Request-Id and X-RateLimit-*`,
    async check(probe) {
      for (const method of ['GET', 'HEAD']) {
        const exchange = await probe.send(probeRequest(method, path));
        expectStatus(exchange, 200);
        if (method === 'GET') expectBody(exchange, ProbeAnswerSchema);
        else expectThat(exchange.response.body === '', 'HEAD answered with a body', exchange);
        expectHeader(exchange, 'X-Request-Id');
        rateLimitHeaders(exchange);
      }
    },
  };
}

/** Probes sent between two counted requests; a deployment counting them counts them all. */
const PROBES_BETWEEN = 6;

/** A request without a key: counted against the calling IP, answered 401. */
const COUNTED_REQUEST: RequestSpec = {
  method: 'GET',
  target: '/v1/pets?limit=1',
  credential: 'none',
};

async function countedRequest(probe: Probe): Promise<Exchange> {
  const exchange = await probe.send(COUNTED_REQUEST);
  expectError(exchange, 'unauthorized');
  return exchange;
}

/**
 * Between two requests counted against this IP, in one window, the probes: the second counted
 * request's `X-RateLimit-Remaining` is one below the first's, not one and every probe below. The
 * counted requests' headers are the shared count's (the probes' own may lag behind it with
 * several instances), and another client on this IP could only lower it further, by as many
 * requests as there were probes, to make it fail.
 */
async function probesNotCounted(probe: Probe): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const before = await countedRequest(probe);
    for (let sent = 0; sent < PROBES_BETWEEN; sent++) {
      const answer = await probe.send(probeRequest('GET', PROBES[sent % PROBES.length] as string));
      expectThat(
        answer.response.status !== 429,
        'a probe was refused by rate limiting (429)',
        answer,
      );
      rateLimitHeaders(answer);
    }
    const after = await countedRequest(probe);
    const first = rateLimitHeaders(before);
    const second = rateLimitHeaders(after);
    if (first.reset !== second.reset || first.limit !== second.limit) {
      // A window ended between them: try once more, in the next.
      if (attempt < 2) continue;
      return skip('a rate-limit window ended during each attempt');
    }
    const spent = first.remaining - second.remaining;
    expectThat(
      spent < 1 + PROBES_BETWEEN,
      `the probes were counted: X-RateLimit-Remaining fell by ${spent} from one request without a key to the next, with ${PROBES_BETWEEN} probes between them`,
      after,
    );
    return;
  }
}

export const probeRules: RuleGroup = {
  name: 'Probes (/healthz, /readyz)',
  rules: [
    ...PROBES.map(probeAnswerRule),
    {
      name: 'the probes are not counted against the calling IP, nor refused by rate limiting',
      check: probesNotCounted,
    },
  ],
};
