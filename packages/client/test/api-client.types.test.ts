/**
 * Type-level tests of the generic client: a contract with a resource the client package has
 * never heard of (`widgets`) gets a client typed from its routes. Checked by `pnpm typecheck`;
 * at run time `expectTypeOf` does nothing.
 */
import type { ErrorBody } from '@animal-store/contract';
import { fixtureContract, type Widget } from '@animal-store/fixture-contract';
import { describe, expectTypeOf, test } from 'vitest';
import {
  type AnimalStoreClient,
  type ApiClientOf,
  createApiClient,
  type RateLimitState,
} from '../src/index.js';

type Client = ApiClientOf<typeof fixtureContract>;
type Widgets = Client['widgets'];
type Request<Operation extends (...args: never[]) => unknown> = NonNullable<
  Parameters<Operation>[0]
>;
type Result<Operation extends (...args: never[]) => Promise<unknown>> = Awaited<
  ReturnType<Operation>
>;
type Body<R, Status> = Extract<R, { status: Status }> extends { body: infer B } ? B : never;

// A real client, though no test here calls the network: the misuses below are only compiled.
const client = createApiClient(fixtureContract, {
  baseUrl: 'http://127.0.0.1:9',
  apiKey: 'key',
  fetch: () => Promise.reject(new Error('type-level tests make no requests')),
});
const compileOnly = (_misuse: () => unknown) => {};

describe('createApiClient', () => {
  test('offers every router of the contract, every operation in it, and the rate-limit state', () => {
    expectTypeOf(client).toEqualTypeOf<Client>();
    expectTypeOf<keyof Client>().toEqualTypeOf<'pets' | 'widgets' | 'rateLimit'>();
    expectTypeOf<keyof Widgets>().toEqualTypeOf<
      'listWidgets' | 'createWidget' | 'getWidget' | 'updateWidget' | 'deleteWidget'
    >();
    expectTypeOf(client.rateLimit).toEqualTypeOf<RateLimitState | undefined>();
  });

  test("the contract's own routers are typed as the Animal Store client types them", () => {
    type Pets = AnimalStoreClient['pets'];
    expectTypeOf<Client['pets']['listPets']>().toEqualTypeOf<Pets['listPets']>();
    expectTypeOf<Client['pets']['createPet']>().toEqualTypeOf<Pets['createPet']>();
    expectTypeOf<Client['pets']['getPet']>().toEqualTypeOf<Pets['getPet']>();
  });

  test('a PATCH takes its path parameter and a partial body; 200 is the Widget, the rest Errors', () => {
    type Args = Request<Widgets['updateWidget']>;
    type R = Result<Widgets['updateWidget']>;
    expectTypeOf<Args['params']>().toEqualTypeOf<{ widgetId: number }>();
    expectTypeOf<Args['body']>().toEqualTypeOf<Partial<Omit<Widget, 'id'>> | undefined>();
    // The route's statuses, and those every operation of v1 may answer.
    expectTypeOf<R['status']>().toEqualTypeOf<
      200 | 400 | 401 | 404 | 413 | 415 | 429 | 431 | 500 | 503
    >();
    expectTypeOf<Body<R, 200>>().toEqualTypeOf<Widget>();
    expectTypeOf<Body<R, 404>>().toMatchTypeOf<ErrorBody>();
    expectTypeOf(client.widgets.updateWidget).toBeCallableWith({
      params: { widgetId: 1 },
      body: { colour: 'red' },
    });
    // @ts-expect-error the widget's id is required
    compileOnly(() => client.widgets.updateWidget({ body: { colour: 'red' } }));
    const params = { widgetId: 1 };
    // @ts-expect-error colour is one of the contract's
    compileOnly(() => client.widgets.updateWidget({ params, body: { colour: 'pink' } }));
  });

  test('a DELETE without a body answers 204 without one, or an Error', () => {
    type Args = Request<Widgets['deleteWidget']>;
    type R = Result<Widgets['deleteWidget']>;
    expectTypeOf<Args['params']>().toEqualTypeOf<{ widgetId: number }>();
    expectTypeOf<Args>().not.toHaveProperty('body');
    expectTypeOf<R['status']>().toEqualTypeOf<204 | 401 | 404 | 429 | 431 | 500 | 503>();
    expectTypeOf<Body<R, 204>>().toEqualTypeOf<undefined>();
  });

  test('a route that requires an Idempotency-Key leaves it to the client', () => {
    type Args = Request<Widgets['createWidget']>;
    expectTypeOf<Args['body']>().toEqualTypeOf<Omit<Widget, 'id'>>();
    expectTypeOf<Args['headers']>().toEqualTypeOf<
      { 'idempotency-key'?: string | undefined } | undefined
    >();
    expectTypeOf(client.widgets.createWidget).toBeCallableWith({
      body: { name: 'Sprocket', colour: 'blue' },
    });
    expectTypeOf<Body<Result<Widgets['createWidget']>, 201>>().toEqualTypeOf<Widget>();
  });

  test('a GET takes its optional query', () => {
    expectTypeOf(client.widgets.listWidgets).toBeCallableWith();
    expectTypeOf(client.widgets.listWidgets).toBeCallableWith({ query: { colour: 'green' } });
    expectTypeOf<Body<Result<Widgets['listWidgets']>, 200>>().toEqualTypeOf<Widget[]>();
  });
});
