import { deprecationHeadersOf, type RouteMetadata } from '@animal-store/contract';
import { type ApiUnderTest, operationsUnderTest } from '../api-under-test.js';
import { expectHeader, expectHeaderValue, expectThat } from '../expectations.js';
import type { Exchange } from '../http/exchange.js';
import { type Operation, operationName, pathOf } from '../operations.js';
import type { Rule, RuleGroup } from '../rule.js';

function expectDeprecationHeaders(operation: Operation, exchange: Exchange): void {
  const headers = deprecationHeadersOf(operation.route as { metadata: RouteMetadata });
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

/** Every deprecated operation says so in each answer, errors included. */
export const deprecationRules = (api: ApiUnderTest): RuleGroup => ({
  name: 'Deprecation',
  rules: operationsUnderTest(api)
    .filter(({ route }) => deprecationHeadersOf(route as { metadata: RouteMetadata }) !== undefined)
    .map(
      (operation): Rule => ({
        name: `${operationName(operation)} is deprecated: its answers, errors included, carry Deprecation, Sunset and the successor's Link`,
        async check(probe) {
          const exchange = await probe.send({
            method: operation.route.method,
            target: pathOf(operation),
          });
          expectDeprecationHeaders(operation, exchange);
        },
      }),
    ),
});
