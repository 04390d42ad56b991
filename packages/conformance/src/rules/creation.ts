import { type NewPet, type Pet, petsContract } from '@animal-store/contract';
import {
  expectBody,
  expectError,
  expectHeaderValue,
  expectStatus,
  expectThat,
} from '../expectations.js';
import type { Exchange } from '../http/exchange.js';
import type { Probe, RuleGroup } from '../rule.js';

const { createPet, getPet } = petsContract;

/** A name that tells the deployment's operators where these pets came from. */
const petName = (purpose: string) => `Conformance check: ${purpose}`;

async function create(probe: Probe, body: string, idempotencyKey?: string): Promise<Exchange> {
  return probe.send({
    method: 'POST',
    target: '/v1/pets',
    ...(idempotencyKey !== undefined && { headers: { 'Idempotency-Key': idempotencyKey } }),
    body: { text: body, contentType: 'application/json' },
  });
}

/** A 201 with the created pet, as sent, and its `Location`. */
function expectCreated(exchange: Exchange, sent: NewPet): Pet {
  expectStatus(exchange, 201);
  const pet = expectBody(exchange, createPet.responses[201]);
  const expected = { ...sent, status: sent.status ?? 'available' };
  for (const field of ['name', 'categoryId', 'status'] as const) {
    expectThat(
      pet[field] === expected[field],
      `the created pet's ${field} is ${JSON.stringify(pet[field])}, not ${JSON.stringify(expected[field])}`,
      exchange,
    );
  }
  expectHeaderValue(exchange, 'Location', `/v1/pets/${pet.id}`);
  return pet;
}

const uniqueKey = (purpose: string) => `conformance-${purpose}-${crypto.randomUUID()}`;

export const creationRules: RuleGroup = {
  name: 'Creating pets (--allow-writes)',
  rules: [
    {
      name: 'createPet answers 201 with the pet as sent and its Location, where getPet finds it',
      needs: 'writes',
      async check(probe) {
        const sent: NewPet = { name: petName('created'), categoryId: 1, status: 'pending' };
        const exchange = await create(probe, JSON.stringify(sent));
        const pet = expectCreated(exchange, sent);
        expectThat(
          exchange.response.headers['idempotent-replayed'] === undefined,
          'a first create carries Idempotent-Replayed',
          exchange,
        );
        const lookup = await probe.send({ method: 'GET', target: `/v1/pets/${pet.id}` });
        expectStatus(lookup, 200);
        const found = expectBody(lookup, getPet.responses[200]);
        expectThat(
          JSON.stringify(found) === JSON.stringify(pet),
          `getPet answers ${JSON.stringify(found)}, not the created ${JSON.stringify(pet)}`,
          lookup,
        );
      },
    },
    {
      name: 'createPet sets status available when it is omitted',
      needs: 'writes',
      async check(probe) {
        const sent: NewPet = { name: petName('default status'), categoryId: 1 };
        expectCreated(await create(probe, JSON.stringify(sent)), sent);
      },
    },
    {
      name: 'createPet replays the first answer to the same Idempotency-Key and body, with Idempotent-Replayed: true',
      needs: 'writes',
      async check(probe) {
        const key = uniqueKey('replay');
        const sent: NewPet = { name: petName('replayed'), categoryId: 2 };
        const first = expectCreated(await create(probe, JSON.stringify(sent), key), sent);
        // The same JSON value: key order and white space do not make another body.
        const again = await create(
          probe,
          `{ "categoryId": 2, "name": ${JSON.stringify(sent.name)} }`,
          key,
        );
        const replayed = expectCreated(again, sent);
        expectThat(
          replayed.id === first.id,
          `the replay answers id ${replayed.id}, not ${first.id}`,
          again,
        );
        expectHeaderValue(again, 'Idempotent-Replayed', 'true');
      },
    },
    {
      name: 'createPet answers 409 idempotency_key_reused to the same Idempotency-Key with another body',
      needs: 'writes',
      async check(probe) {
        const key = uniqueKey('reuse');
        const sent: NewPet = { name: petName('first of a reused key'), categoryId: 3 };
        expectCreated(await create(probe, JSON.stringify(sent), key), sent);
        const other = await create(probe, JSON.stringify({ ...sent, categoryId: 4 }), key);
        expectError(other, 'idempotency_key_reused');
        expectBody(other, createPet.responses[409]);
      },
    },
  ],
};
