/**
 * Type-level tests: what the client infers for each operation. Checked by `pnpm typecheck`
 * (tsc includes the tests); at run time `expectTypeOf` does nothing.
 */
import type { ErrorBody, NewPet, Pet, PetStatus } from '@animal-store/contract';
import { describe, expectTypeOf, test } from 'vitest';
import {
  type AnimalStoreClient,
  createClient,
  type ListPetsPageResult,
  type PetsFilter,
  type RateLimitState,
} from './index.js';

// A real client, though no test here calls the network: the misuses below are only compiled.
const client: AnimalStoreClient = createClient({
  baseUrl: 'http://127.0.0.1:9',
  apiKey: 'key',
  fetch: () => Promise.reject(new Error('type-level tests make no requests')),
});
const compileOnly = (_misuse: () => unknown) => {};
type Pets = AnimalStoreClient['pets'];
type Result<Operation extends (...args: never[]) => Promise<unknown>> = Awaited<
  ReturnType<Operation>
>;
type Body<R, Status> = Extract<R, { status: Status }> extends { body: infer B } ? B : never;

describe('createClient', () => {
  test('takes baseUrl and apiKey, and optional fetch, retry and onDeprecation', () => {
    expectTypeOf(createClient).toBeCallableWith({ baseUrl: 'https://x', apiKey: 'k' });
    expectTypeOf(createClient).toBeCallableWith({
      baseUrl: 'https://x',
      apiKey: 'k',
      fetch: globalThis.fetch,
      retry: false,
      onDeprecation: () => {},
    });
    expectTypeOf(createClient).toBeCallableWith({
      baseUrl: 'https://x',
      apiKey: 'k',
      retry: { maxAttempts: 3, maxRetryAfterMs: 900_000, maxElapsedMs: 1_000_000 },
    });
    // @ts-expect-error the API key is required
    compileOnly(() => createClient({ baseUrl: 'https://x' }));
    expectTypeOf(client.rateLimit).toEqualTypeOf<RateLimitState | undefined>();
  });
});

describe('listPets', () => {
  type R = Result<Pets['listPets']>;

  test('takes an optional query of limit, status and cursor', () => {
    expectTypeOf(client.pets.listPets).toBeCallableWith();
    expectTypeOf(client.pets.listPets).toBeCallableWith({
      query: { limit: 10, status: 'sold', cursor: 'c' },
    });
    // @ts-expect-error status is a PetStatus
    compileOnly(() => client.pets.listPets({ query: { status: 'gone' } }));
  });

  test('results are discriminated by status', () => {
    expectTypeOf<R['status']>().toEqualTypeOf<200 | 400 | 401 | 429 | 431 | 500 | 503>();
    expectTypeOf<Body<R, 200>>().toEqualTypeOf<Pet[]>();
    expectTypeOf<Body<R, 400>['code']>().toEqualTypeOf<'validation_failed' | 'malformed_request'>();
    expectTypeOf<Body<R, 431>['code']>().toEqualTypeOf<'headers_too_large'>();
    expectTypeOf<Body<R, 401>['code']>().toEqualTypeOf<'unauthorized'>();
    expectTypeOf<Body<R, 429>['code']>().toEqualTypeOf<'rate_limited' | 'temporarily_banned'>();
    expectTypeOf<R['headers']>().toEqualTypeOf<Headers>();
  });
});

describe('createPet', () => {
  type R = Result<Pets['createPet']>;

  test('takes a NewPet body and an optional Idempotency-Key', () => {
    type Args = Parameters<Pets['createPet']>[0];
    expectTypeOf<Args['body']>().toEqualTypeOf<NewPet>();
    expectTypeOf<Args['headers']>().toEqualTypeOf<
      { 'idempotency-key'?: string | undefined } | undefined
    >();
    expectTypeOf(client.pets.createPet).toBeCallableWith({ body: { name: 'Rex', categoryId: 1 } });
    // @ts-expect-error categoryId is a number
    compileOnly(() => client.pets.createPet({ body: { name: 'Rex', categoryId: 'seven' } }));
    // @ts-expect-error name is required
    compileOnly(() => client.pets.createPet({ body: { categoryId: 1 } }));
    // @ts-expect-error the body is required
    compileOnly(() => client.pets.createPet());
  });

  test('201 is the Pet; the errors carry their codes', () => {
    expectTypeOf<R['status']>().toEqualTypeOf<
      201 | 400 | 401 | 409 | 413 | 415 | 429 | 431 | 500 | 503
    >();
    expectTypeOf<Body<R, 201>>().toEqualTypeOf<Pet>();
    expectTypeOf<Body<R, 400>['code']>().toEqualTypeOf<
      'validation_failed' | 'malformed_json' | 'malformed_request'
    >();
    expectTypeOf<Body<R, 409>['code']>().toEqualTypeOf<'idempotency_key_reused'>();
    expectTypeOf<Body<R, 401>>().toExtend<ErrorBody>();
  });
});

describe('getPet', () => {
  type R = Result<Pets['getPet']>;

  test('takes the petId path parameter; 200 is the Pet, 404 not_found', () => {
    expectTypeOf<Parameters<Pets['getPet']>[0]['params']>().toEqualTypeOf<{
      petId: string | number;
    }>();
    expectTypeOf<R['status']>().toEqualTypeOf<200 | 400 | 401 | 404 | 429 | 431 | 500 | 503>();
    expectTypeOf<Body<R, 200>>().toEqualTypeOf<Pet>();
    expectTypeOf<Body<R, 400>['code']>().toEqualTypeOf<'malformed_request'>();
    expectTypeOf<Body<R, 404>['code']>().toEqualTypeOf<'not_found'>();
  });
});

describe('paging', () => {
  test('the iterator yields Pets for a filter without a cursor', () => {
    expectTypeOf(client.pets.listAllPets).returns.toEqualTypeOf<
      AsyncGenerator<Pet, void, undefined>
    >();
    expectTypeOf<PetsFilter>().toEqualTypeOf<{
      limit?: string | number | undefined;
      status?: PetStatus | undefined;
    }>();
  });

  test('a page result has nextCursor on 200 only', () => {
    type Page = Extract<ListPetsPageResult, { status: 200 }>;
    expectTypeOf<Page['nextCursor']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Page['body']>().toEqualTypeOf<Pet[]>();
    expectTypeOf<Extract<ListPetsPageResult, { status: 401 }>>().not.toHaveProperty('nextCursor');
  });
});
