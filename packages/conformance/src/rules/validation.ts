import { petsContract } from '@animal-store/contract';
import { expectBody, expectError, expectValidationDetails } from '../expectations.js';
import type { RuleGroup } from '../rule.js';

const { listPets, createPet } = petsContract;

/**
 * Bodies no deployment can store (an empty name, category 0, an unknown field): sent read-only,
 * since a deployment that failed to refuse them would still create nothing.
 */
const INVALID_PET = '{"name":"","categoryId":0,"colour":"brown"}';

export const validationRules: RuleGroup = {
  name: 'Validation errors (400 with details)',
  rules: [
    {
      name: 'listPets answers 400 naming each invalid query parameter in details',
      async check(probe) {
        const exchange = await probe.send({
          method: 'GET',
          target: '/v1/pets?limit=0&status=lost',
        });
        expectValidationDetails(exchange, ['limit', 'status']);
        expectBody(exchange, listPets.responses[400]);
      },
    },
    {
      name: 'listPets answers 400 to a query parameter given twice',
      async check(probe) {
        const exchange = await probe.send({ method: 'GET', target: '/v1/pets?limit=1&limit=2' });
        expectValidationDetails(exchange, ['limit']);
      },
    },
    {
      name: 'createPet answers 400 naming each invalid field, unknown ones included (read-only: nothing is stored)',
      async check(probe) {
        const exchange = await probe.send({
          method: 'POST',
          target: '/v1/pets',
          body: { text: INVALID_PET, contentType: 'application/json' },
        });
        expectValidationDetails(exchange, ['name', 'categoryId', 'colour']);
        expectBody(exchange, createPet.responses[400]);
      },
    },
    {
      name: 'createPet answers 400 to an Idempotency-Key that is not visible ASCII (read-only)',
      async check(probe) {
        const exchange = await probe.send({
          method: 'POST',
          target: '/v1/pets',
          headers: { 'Idempotency-Key': 'two words' },
          body: { text: INVALID_PET, contentType: 'application/json' },
        });
        expectValidationDetails(exchange, ['idempotency-key']);
      },
    },
    {
      name: 'createPet answers 400 malformed_json to a body that is not JSON (read-only)',
      async check(probe) {
        const exchange = await probe.send({
          method: 'POST',
          target: '/v1/pets',
          body: { text: '{"name":', contentType: 'application/json' },
        });
        expectError(exchange, 'malformed_json');
      },
    },
  ],
};
