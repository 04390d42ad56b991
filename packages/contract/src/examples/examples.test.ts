import { initContract } from '@ts-rest/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { errorBodyOf } from '../error-messages.js';
import { errorResponseDocumentationOf } from '../errors.js';
import { contract, PetSchema, petsContract, V1_ROUTER_OPTIONS } from '../index.js';
import { operationsOf } from '../operations.js';
import {
  absent,
  CONTRACT_EXAMPLES,
  type ContractExamples,
  contractExampleCases,
  type Example,
  type ExampleCase,
  examplesOf,
  runExample,
  type Transport,
  unexemplified,
  type WireAnswer,
} from './index.js';

const c = initContract();

describe('the examples of the v1 contract', () => {
  it('answer every status each operation declares, and every error code it documents', () => {
    expect(unexemplified(contract, contractExampleCases())).toEqual([]);
  });

  it("give, for each error the OpenAPI document shows an example of, that example's body", () => {
    const cases = contractExampleCases();
    const missing = operationsOf(contract).flatMap(({ name, route }) =>
      Object.entries(route.responses).flatMap(([status, response]) => {
        const documented = errorResponseDocumentationOf(response)?.examples ?? {};
        return Object.entries(documented)
          .filter(([code, example]) => {
            const body = errorBodyOf(
              { code: code as keyof typeof documented, message: example?.message ?? '' },
              example?.details,
            );
            return !cases.some((example) => {
              const promised = example.steps.at(-1)?.response as { status: number; body?: unknown };
              return (
                example.operation === name &&
                JSON.stringify({ status: promised.status, body: promised.body }) ===
                  JSON.stringify({ status: Number(status), body })
              );
            });
          })
          .map(([code]) => `${name} ${status} ${code}`);
      }),
    );
    // Common responses (401, 429, 5xx) are the interface's rules, not an operation's examples.
    expect(missing.filter((entry) => !/ (401|429|431|500|503) /.test(entry))).toEqual([]);
  });
});

describe('an operation without examples', () => {
  const renamePet = c.router({
    renamePet: {
      method: 'PUT',
      path: '/pets/:petId/name',
      body: z.object({ name: z.string() }),
      responses: { 200: PetSchema, 404: petsContract.getPet.responses[404] },
    },
  });
  const grown = c.router(
    { pets: { ...petsContract, ...c.router({ pets: renamePet }, V1_ROUTER_OPTIONS).pets } },
    {},
  );

  it('is named, with each answer no example gives', () => {
    const examples = { ...CONTRACT_EXAMPLES, renamePet: [] };
    expect(unexemplified(grown, examplesOf(grown, examples))).toEqual([
      'renamePet answers 200 in no example',
      'renamePet answers 404 not_found in no example',
    ]);
  });

  it('is a type error where the examples are stated', () => {
    // @ts-expect-error: renamePet has no examples.
    const examples: ContractExamples<typeof grown> = { ...CONTRACT_EXAMPLES };
    expect(examples).toBeDefined();
  });
});

describe('an example is typed by its route', () => {
  type GetPet = typeof petsContract.getPet;
  it('refuses a status the route does not declare, and a parameter it does not have', () => {
    expectTypeOf<{
      summary: 'x';
      request: { params: { petId: '1' } };
      response: { status: 200 };
    }>().toMatchTypeOf<Example<typeof contract, GetPet>>();
    expectTypeOf<{
      summary: 'x';
      request: { params: { petId: '1' } };
      response: { status: 409 };
    }>().not.toMatchTypeOf<Example<typeof contract, GetPet>>();
    expectTypeOf<{
      summary: 'x';
      request: { params: { id: '1' } };
      response: { status: 200 };
    }>().not.toMatchTypeOf<Example<typeof contract, GetPet>>();
  });
});

describe('runExample', () => {
  const [created] = examplesOf(contract, {
    ...CONTRACT_EXAMPLES,
    createPet: [
      {
        summary: 'creates Rex',
        request: { body: { name: 'Rex', categoryId: 1 } },
        response: {
          status: 201,
          body: { id: 7, name: 'Rex', categoryId: 1, status: 'available' },
          headers: { Location: '/v1/pets/7', 'Idempotent-Replayed': absent },
        },
      },
    ],
  }).filter(({ operation }) => operation === 'createPet') as [ExampleCase];

  const answering =
    (answer: Partial<WireAnswer> & { json?: unknown }): Transport =>
    async () => ({
      status: answer.status ?? 201,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        location: '/v1/pets/7',
        ...answer.headers,
      },
      body: answer.body ?? JSON.stringify(answer.json),
    });
  const rex = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };

  it('finds nothing wrong with the answer promised', async () => {
    expect((await runExample(created, answering({ json: rex }))).problems).toEqual([]);
  });

  it.each([
    [{ status: 200, json: rex }, 'answered 200, expected 201'],
    [{ json: { ...rex, id: 8 } }, 'body.id is 8, expected 7'],
    [{ json: { ...rex, colour: 'red' } }, 'body.colour is there, expected no such field'],
    [{ json: { id: 7, name: 'Rex', categoryId: 1 } }, 'body.status is missing'],
    [{ json: rex, headers: { location: '/v1/pets/8' } }, 'Location is "/v1/pets/8"'],
    [{ json: rex, headers: { 'idempotent-replayed': 'true' } }, 'Idempotent-Replayed is "true"'],
    [{ json: rex, headers: { 'content-type': 'text/plain' } }, 'Content-Type is text/plain'],
  ])('names what differs: %j', async (answer, problem) => {
    const { problems } = await runExample(created, answering(answer));
    expect(problems.join('\n')).toContain(problem);
  });

  it('sends what the example says, the way a client would', async () => {
    const sent: unknown[] = [];
    await runExample(created, async (request) => {
      sent.push(request);
      return { status: 201, headers: {}, body: '' };
    });
    expect(sent).toEqual([
      {
        method: 'POST',
        target: '/v1/pets',
        headers: {},
        credential: 'key',
        body: { text: '{"name":"Rex","categoryId":1}', contentType: 'application/json' },
      },
    ]);
  });
});
