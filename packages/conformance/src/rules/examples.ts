import { type ExampleCase, runExample, type Transport } from '@animal-store/contract/examples';
import type { ApiUnderTest } from '../api-under-test.js';
import { skipIfAnsweredInFront } from '../expectations.js';
import type { Exchange } from '../http/exchange.js';
import { type Probe, type Rule, type RuleGroup, RuleViolation } from '../rule.js';

/**
 * An example's requests through the check's own sending, so that each is recorded for the report
 * and replayable with curl; a target with a fragment goes byte for byte, as fetch would drop it.
 */
function transportOf(probe: Probe, sent: Exchange[]): Transport {
  return async ({ method, target, headers, credential, body }) => {
    const exchange = await probe.send({
      method,
      target,
      headers,
      credential,
      ...(body && { body }),
      ...(target.includes('#') && { verbatim: true }),
    });
    sent.push(exchange);
    return exchange.response;
  };
}

function exampleRule(example: ExampleCase): Rule {
  return {
    name: example.title,
    ...(example.writes && { needs: 'writes' as const }),
    async check(probe) {
      const sent: Exchange[] = [];
      const { problems } = await runExample(example, transportOf(probe, sent));
      if (problems.length === 0) return;
      const last = sent.at(-1);
      // A proxy in front may refuse a request no client should send before the service sees it.
      if (last && sendsFragment(example)) skipIfAnsweredInFront(last);
      throw new RuleViolation(problems.join('; '), last);
    },
  };
}

/** Whether an example sends a target no client should: a fragment, which a proxy may refuse. */
const sendsFragment = (example: ExampleCase) =>
  example.steps.some((step) => step.request.fragment !== undefined);

/**
 * What each operation does, as the contract's examples state it: the same examples the server and
 * the mock are tested with. Those that create pets need `--allow-writes`.
 */
export const exampleRules = (api: ApiUnderTest): RuleGroup => ({
  name: "Each operation's examples",
  rules: api.examples.filter((example) => !sendsFragment(example)).map(exampleRule),
});

/**
 * The examples that send what no client should (a fragment in the target): run after the rules
 * over every answer of the run, as the other requests at the edges of HTTP are, since a proxy in
 * front may answer them itself, with an answer that says nothing about the service.
 */
export const edgeExampleRules = (api: ApiUnderTest): RuleGroup => ({
  name: "Each operation's examples at the edges of HTTP",
  rules: api.examples.filter(sendsFragment).map(exampleRule),
});
