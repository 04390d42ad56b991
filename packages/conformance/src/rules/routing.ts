import { type ApiUnderTest, operationsUnderTest } from '../api-under-test.js';
import { expectError, expectHeader, expectThat } from '../expectations.js';
import { allowedMethodsByPath, type Operation, operationName, pathOf } from '../operations.js';
import type { Rule, RuleGroup } from '../rule.js';

/** Methods no v1 path allows today, tried in this order. */
const CANDIDATE_METHODS = ['DELETE', 'PUT', 'PATCH'];

const methodsOf = (allow: string) =>
  new Set(
    allow
      .split(',')
      .map((method) => method.trim().toUpperCase())
      .filter(Boolean),
  );

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>) =>
  a.size === b.size && [...a].every((item) => b.has(item));

const methodNotAllowedRules = (operations: readonly Operation[]): Rule[] =>
  [...allowedMethodsByPath(operations)].flatMap(([path, allowed]) => {
    const method = CANDIDATE_METHODS.find((candidate) => !allowed.has(candidate));
    if (method === undefined) return [];
    const expected = [...allowed].sort().join(', ');
    return [
      {
        name: `${method} ${path} answers 405 with Allow: ${expected}`,
        async check(probe) {
          const exchange = await probe.send({ method, target: path });
          expectError(exchange, 'method_not_allowed');
          const allow = expectHeader(exchange, 'Allow');
          expectThat(
            sameSet(methodsOf(allow), allowed),
            `expected Allow to list ${expected}, got ${allow}`,
            exchange,
          );
        },
      },
    ];
  });

/** HEAD is answered wherever GET is: the same status, no body (docs/interface.md, "Conventions"). */
const headRules = (operations: readonly Operation[]): Rule[] =>
  operations
    .filter((operation) => operation.route.method === 'GET')
    .map((operation) => ({
      name: `HEAD is answered as ${operationName(operation)}'s GET is, without a body`,
      async check(probe) {
        const target = pathOf(operation);
        const get = await probe.send({ method: 'GET', target });
        const head = await probe.send({ method: 'HEAD', target });
        expectThat(
          head.response.status === get.response.status,
          `HEAD answered ${head.response.status}, GET ${get.response.status}`,
          head,
        );
        expectThat(head.response.body === '', 'HEAD answered with a body', head);
      },
    }));

export const routingRules = (api: ApiUnderTest): RuleGroup => ({
  name: 'Routing (404, 405)',
  rules: [
    {
      name: 'an unknown path (/v1/store/orders) answers 404 not_found',
      async check(probe) {
        expectError(await probe.send({ method: 'GET', target: '/v1/store/orders' }), 'not_found');
      },
    },
    {
      name: 'paths are exact: /v1/pets/ (trailing slash) answers 404 not_found',
      async check(probe) {
        expectError(await probe.send({ method: 'GET', target: '/v1/pets/' }), 'not_found');
      },
    },
    ...methodNotAllowedRules(operationsUnderTest(api)),
    ...headRules(operationsUnderTest(api)),
  ],
});
