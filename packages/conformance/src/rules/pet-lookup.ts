import { deprecationHeadersOf, MAX_INTEGER_ID, petsContract } from '@animal-store/contract';
import {
  expectBody,
  expectError,
  expectHeader,
  expectHeaderValue,
  expectThat,
} from '../expectations.js';
import type { Exchange } from '../http/exchange.js';
import { type Operation, operationName, operations, pathOf } from '../operations.js';
import type { Rule, RuleGroup } from '../rule.js';

const { getPet } = petsContract;

/** `01` would alias `1`: an id is canonical decimal, so no pet lives at this path. */
const NOT_AN_ID = '01';

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

export const petLookupRules: RuleGroup = {
  name: 'Looking a pet up, and deprecation',
  rules: [
    {
      name: `getPet answers 404 not_found for an id no pet has (${MAX_INTEGER_ID})`,
      async check(probe) {
        const exchange = await probe.send({ method: 'GET', target: pathOf(getPet) });
        expectError(exchange, 'not_found');
        expectBody(exchange, getPet.responses[404]);
      },
    },
    {
      name: `getPet answers 404, not 400, for a petId that cannot be an id (${NOT_AN_ID})`,
      async check(probe) {
        const exchange = await probe.send({ method: 'GET', target: `/v1/pets/${NOT_AN_ID}` });
        expectError(exchange, 'not_found');
      },
    },
    ...deprecatedOperationRules,
  ],
};
