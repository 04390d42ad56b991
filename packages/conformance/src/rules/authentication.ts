import type { ApiUnderTest } from '../api-under-test.js';
import { operationsUnderTest } from '../api-under-test.js';
import { expectBody, expectError, expectHeaderValue } from '../expectations.js';
import type { RequestCredential, RequestSpec } from '../http/exchange.js';
import {
  hasBody,
  type Operation,
  operationName,
  pathOf,
  REFUSED_BODY,
  responseSchema,
} from '../operations.js';
import { type Rule, type RuleGroup, skip } from '../rule.js';

/** Well-formed but issued by no deployment: refused whatever the keys it holds. */
const UNKNOWN_KEY = 'ask_conformanceCheckKeyThatNoDeploymentIssued000000';

const INVALID_TOKEN = 'Bearer realm="animal-store", error="invalid_token"';

function requestWithout(operation: Operation, credential: RequestCredential): RequestSpec {
  return {
    method: operation.route.method,
    target: pathOf(operation),
    credential,
    ...(hasBody(operation) && {
      body: { text: REFUSED_BODY, contentType: 'application/json' },
    }),
  };
}

function refusedWith(
  operation: Operation,
  situation: string,
  credential: RequestCredential,
  challenge: string,
): Rule {
  return {
    name: `${operationName(operation)} answers 401 ${situation}, with the challenge`,
    async check(probe) {
      if (credential === 'revoked-key' && probe.options.revokedKey === undefined) {
        skip('no --revoked-key given');
      }
      const exchange = await probe.send(requestWithout(operation, credential));
      expectError(exchange, 'unauthorized');
      expectBody(exchange, responseSchema(operation, 401));
      expectHeaderValue(exchange, 'WWW-Authenticate', challenge);
    },
  };
}

/**
 * Every operation refuses a request without a valid key; a revoked key is refused as an unknown
 * one is, tried on the first operation alone, as a request with it is counted against the
 * calling IP, like any without a valid key.
 */
export const authenticationRules = (api: ApiUnderTest): RuleGroup => {
  const operations = operationsUnderTest(api);
  const [first] = operations;
  return {
    name: 'Authentication',
    rules: [
      ...operations.flatMap((operation) => [
        refusedWith(operation, 'without a key', 'none', 'Bearer realm="animal-store"'),
        refusedWith(
          operation,
          'to a key it did not issue',
          { authorization: `Bearer ${UNKNOWN_KEY}` },
          INVALID_TOKEN,
        ),
      ]),
      ...(first
        ? [refusedWith(first, 'to a revoked key (--revoked-key)', 'revoked-key', INVALID_TOKEN)]
        : []),
    ],
  };
};
