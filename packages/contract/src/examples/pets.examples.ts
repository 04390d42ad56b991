/**
 * What each pets operation of v1 does, as examples every implementation is held to: the server
 * (on SQLite and PostgreSQL), the mock, and any deployment through the conformance check. A
 * request here is what a client sends; an answer is what the interface promises for it, its
 * error messages those of `ERROR_MESSAGES`. Examples that create pets run only where writes are
 * allowed; every other one holds on a deployment with any pets at all.
 */
import { ERROR_MESSAGES, errorBodyOf } from '../error-messages.js';
import { MAX_INTEGER_ID, PAGE_SIZE } from '../fields.js';
import type { Contract } from '../index.js';
import { GET_PET_DEPRECATION_HEADERS } from '../index.js';
import { PetSchema } from '../pets.js';
import { type ContractExamples, invalid, raw } from './example.js';
import { absent, arrayOf, nextPageLink, ref, satisfies, template, unique } from './expected.js';

const REX = { name: 'Rex', categoryId: 1 } as const;

/** A createPet with an `Idempotency-Key` new to the run: what a replay or a conflict stands on. */
const CREATED_WITH_A_KEY = {
  operation: 'createPet',
  request: { headers: { 'Idempotency-Key': unique('key') }, body: REX },
} as const;

/** A pet no deployment can store, sent where the request must be refused before it is read. */
const UNSTORABLE = { name: '', categoryId: 0 };

/** A JSON body one byte larger than a request body may be (16 KiB). */
const OVERSIZED_BODY = `{"categoryId":1,"name":"${'x'.repeat(16 * 1024 + 1 - 26)}"}`;

const invalidFields = (...details: { path: string; message: string }[]) =>
  errorBodyOf(ERROR_MESSAGES.invalidFields(details.map(({ path }) => path)), details);

const PAGE_LIMIT = `must be a whole number from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`;
const STATUS = 'must be one of available, pending, sold';

export const PETS_EXAMPLES = {
  listPets: [
    {
      summary: 'answers a page of at most `limit` pets, in ascending id order',
      request: { query: { limit: '2' } },
      response: { status: 200, body: arrayOf(PetSchema, { atMost: 2, ascendingBy: 'id' }) },
    },
    {
      summary: 'answers only the pets with the status asked for',
      request: { query: { status: 'sold' } },
      response: {
        status: 200,
        body: arrayOf(PetSchema, {
          atMost: PAGE_SIZE.default,
          ascendingBy: 'id',
          every: { status: 'sold' },
        }),
      },
    },
    {
      summary: 'links the next page while more pets follow, keeping `limit`',
      given: {
        first: { operation: 'createPet', request: { body: REX } },
        second: { operation: 'createPet', request: { body: REX } },
      },
      request: { query: { limit: '1' } },
      response: {
        status: 200,
        body: arrayOf(PetSchema, { atMost: 1 }),
        headers: { Link: nextPageLink({ limit: '1' }) },
      },
    },
    {
      summary: 'continues, at the next page, after the last pet of the one before',
      given: {
        first: { operation: 'createPet', request: { body: REX } },
        second: { operation: 'createPet', request: { body: REX } },
        page: { operation: 'listPets', request: { query: { limit: '1' } } },
      },
      request: { query: { limit: '1', cursor: ref('page.next.cursor') } },
      response: {
        status: 200,
        body: arrayOf(PetSchema, { atMost: 1, ascendingBy: 'id', after: ref('page.body.0.id') }),
      },
    },
    {
      summary: 'refuses a limit out of range, naming the parameter',
      request: { query: { limit: '0' } },
      response: { status: 400, body: invalidFields({ path: 'limit', message: PAGE_LIMIT }) },
    },
    {
      summary: 'refuses a limit above 100',
      request: { query: { limit: String(PAGE_SIZE.max + 1) } },
      response: { status: 400, body: invalidFields({ path: 'limit', message: PAGE_LIMIT }) },
    },
    {
      summary: 'refuses a status it does not know',
      request: { query: { status: 'lost' } },
      response: { status: 400, body: invalidFields({ path: 'status', message: STATUS }) },
    },
    {
      summary: 'refuses every invalid parameter at once, a repeated one included',
      request: { query: { limit: '05', status: ['sold', 'pending'] } },
      response: {
        status: 400,
        body: invalidFields(
          { path: 'limit', message: PAGE_LIMIT },
          { path: 'status', message: `${STATUS}, given once` },
        ),
      },
    },
    {
      summary: 'refuses a cursor the service did not issue',
      request: { query: { cursor: '20.Qk9XcbMRsdl7t0FnVUf8aA' } },
      response: {
        status: 400,
        body: invalidFields({ path: 'cursor', message: 'is not a cursor this service issued' }),
      },
    },
    {
      summary: 'refuses a fragment in the request target before reading the request',
      request: { fragment: 'top' },
      response: { status: 400, body: errorBodyOf(ERROR_MESSAGES.fragmentInTarget) },
    },
  ],
  createPet: [
    {
      summary: 'creates the pet, `available` unless told, and answers it with its Location',
      request: { body: REX },
      response: {
        status: 201,
        body: { ...REX, status: 'available', id: satisfies(PetSchema.shape.id, 'its new id') },
        headers: {
          Location: template('/v1/pets/{self.body.id}'),
          'Idempotent-Replayed': absent,
        },
      },
    },
    {
      summary: 'stores the name exactly as sent, the status given',
      request: {
        body: { name: '  Nul\u0000 and 🐶 ', categoryId: MAX_INTEGER_ID, status: 'sold' },
      },
      response: {
        status: 201,
        body: {
          name: '  Nul\u0000 and 🐶 ',
          categoryId: MAX_INTEGER_ID,
          status: 'sold',
          id: satisfies(PetSchema.shape.id, 'its new id'),
        },
      },
    },
    {
      summary: 'replays the first answer to a retry with the same Idempotency-Key and body',
      given: { first: CREATED_WITH_A_KEY },
      request: {
        headers: { 'Idempotency-Key': unique('key') },
        // The same JSON value, its keys in another order.
        body: { categoryId: REX.categoryId, name: REX.name },
      },
      response: {
        status: 201,
        body: ref('first.body'),
        headers: { Location: ref('first.headers.location'), 'Idempotent-Replayed': 'true' },
      },
    },
    {
      summary: 'refuses an Idempotency-Key used before with another body',
      given: { first: CREATED_WITH_A_KEY },
      request: {
        headers: { 'Idempotency-Key': unique('key') },
        body: { ...REX, status: 'sold' },
      },
      response: { status: 409, body: errorBodyOf(ERROR_MESSAGES.idempotencyKeyReused) },
    },
    {
      summary: 'refuses a body without a name',
      request: { body: invalid({ categoryId: REX.categoryId }) },
      response: { status: 400, body: invalidFields({ path: 'name', message: 'is required' }) },
    },
    {
      summary: 'refuses every invalid field at once',
      request: { body: invalid({ name: ' ', categoryId: 0, colour: 'brown' }) },
      response: {
        status: 400,
        body: invalidFields(
          { path: 'name', message: 'must contain a character other than whitespace' },
          {
            path: 'categoryId',
            message: `must be a whole number from 1 to ${MAX_INTEGER_ID}`,
          },
          { path: 'colour', message: 'is not a field of NewPet' },
        ),
      },
    },
    {
      summary: 'refuses an invalid Idempotency-Key beside the body',
      request: { headers: { 'Idempotency-Key': 'two words' }, body: REX },
      response: {
        status: 400,
        body: invalidFields({
          path: 'idempotency-key',
          message: 'must be 1 to 255 visible ASCII characters',
        }),
      },
    },
    {
      summary: 'refuses a body that is not JSON',
      request: { body: raw('{"name":', 'application/json') },
      response: { status: 400, body: errorBodyOf(ERROR_MESSAGES.bodyNotJson) },
    },
    {
      summary: 'refuses a fragment in the request target before reading the body',
      request: { fragment: 'top', body: invalid(UNSTORABLE) },
      response: { status: 400, body: errorBodyOf(ERROR_MESSAGES.fragmentInTarget) },
    },
    {
      summary: 'refuses a body larger than 16 KiB',
      request: {
        body: raw(OVERSIZED_BODY, 'application/json', 'a JSON body of 16,385 bytes'),
      },
      response: { status: 413, body: errorBodyOf(ERROR_MESSAGES.bodyTooLarge) },
    },
    {
      summary: 'refuses a body not declared JSON',
      request: { body: raw(JSON.stringify(UNSTORABLE), 'text/plain') },
      response: { status: 415, body: errorBodyOf(ERROR_MESSAGES.bodyNotDeclaredJson) },
    },
  ],
  getPet: [
    {
      summary: 'answers the pet of the id, and that the operation is deprecated',
      given: { created: { operation: 'createPet', request: { body: REX } } },
      request: { params: { petId: ref('created.body.id') } },
      response: { status: 200, body: ref('created.body'), headers: GET_PET_DEPRECATION_HEADERS },
    },
    {
      summary: 'answers 404 for an id no pet has',
      request: { params: { petId: String(MAX_INTEGER_ID) } },
      response: {
        status: 404,
        body: errorBodyOf(ERROR_MESSAGES.noSuchResource('petId', MAX_INTEGER_ID)),
        headers: GET_PET_DEPRECATION_HEADERS,
      },
    },
    {
      summary: 'answers 404, not 400, for a petId that cannot be an id',
      request: { params: { petId: '01' } },
      response: {
        status: 404,
        body: errorBodyOf(ERROR_MESSAGES.noSuchResource('petId', '01')),
      },
    },
    {
      summary: 'refuses a fragment in the request target before reading the request',
      request: { params: { petId: '1' }, fragment: 'top' },
      response: { status: 400, body: errorBodyOf(ERROR_MESSAGES.fragmentInTarget) },
    },
  ],
} as const satisfies ContractExamples<Contract>;
