import { deprecationHeadersOf } from '@animal-store/contract';
import { expectHeader, expectHeaderValue, expectThat } from '../expectations.js';
import type { Exchange } from '../http/exchange.js';
import { type Operation, operationName, operations, pathOf } from '../operations.js';
import type { Rule, RuleGroup } from '../rule.js';

function expectDeprecationHeaders(operation: Operation, exchange: Exchange): void {
  const headers = deprecationHeadersOf(operation);
  if (headers === undefined) return;
  expectHeaderValue(exchange, 'Deprecation', headers.Deprecation);
  expectHeaderValue(exchange, 'Sunset', headers.Sunset);
  // Other links may share the header: this one must be among them.
  const link = expectHeader(exchange, 'Link');
  expectThat(
    link.includes(headers.Link),
    `expected Link to include ${headers.Link}, got ${link}`,
    exchange,
  );
}

const deprecatedOperationRules: Rule[] = operations()
  .filter((operation) => deprecationHeadersOf(operation) !== undefined)
  .map((operation) => ({
    name: `${operationName(operation)} is deprecated: its answers, errors included, carry Deprecation, Sunset and the successor's Link`,
    async check(probe) {
      const exchange = await probe.send({ method: operation.method, target: pathOf(operation) });
      expectDeprecationHeaders(operation, exchange);
    },
  }));

export const deprecationRules: RuleGroup = {
  name: 'Deprecation',
  rules: deprecatedOperationRules,
};
