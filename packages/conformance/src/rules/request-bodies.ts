import { expectBody, expectError } from '../expectations.js';
import {
  hasBody,
  type Operation,
  operationName,
  operations,
  pathOf,
  REFUSED_BODY,
  responseSchema,
} from '../operations.js';
import type { Rule, RuleGroup } from '../rule.js';

/** The largest body a deployment reads (docs/interface.md, "Size limits and bodies"). */
const MAX_BODY_BYTES = 16 * 1024;

/** Past the limit, and a name far too long to store: refused either way, nothing is created. */
const NAME_LENGTH = MAX_BODY_BYTES + 1024;
export const OVERSIZED_BODY = {
  text: JSON.stringify({ name: 'x'.repeat(NAME_LENGTH), categoryId: 1 }),
  contentType: 'application/json',
  shell: `$(printf '{"name":"%s","categoryId":1}' "$(head -c ${NAME_LENGTH} /dev/zero | tr '\\0' x)")`,
};

function bodyRules(operation: Operation): Rule[] {
  const name = operationName(operation);
  return [
    {
      name: `${name} answers 413 to a body over 16 KiB (refused before any write: allowed read-only)`,
      async check(probe) {
        const exchange = await probe.send({
          method: operation.method,
          target: pathOf(operation),
          body: OVERSIZED_BODY,
        });
        expectError(exchange, 'payload_too_large');
        expectBody(exchange, responseSchema(operation, 413));
      },
    },
    {
      name: `${name} answers 415 to a body not declared application/json (refused before any write: allowed read-only)`,
      async check(probe) {
        const exchange = await probe.send({
          method: operation.method,
          target: pathOf(operation),
          body: { text: REFUSED_BODY, contentType: 'text/plain' },
        });
        expectError(exchange, 'unsupported_media_type');
        expectBody(exchange, responseSchema(operation, 415));
      },
    },
  ];
}

export const requestBodyRules: RuleGroup = {
  name: 'Request bodies (413, 415)',
  rules: operations().filter(hasBody).flatMap(bodyRules),
};
