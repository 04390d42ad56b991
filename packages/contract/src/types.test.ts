/**
 * Type-level tests: what ts-rest infers from the contract for clients and servers. They are
 * checked by `pnpm typecheck` (tsc includes the tests); at run time `expectTypeOf` does nothing.
 */
import type {
  AppRouter,
  ClientInferRequest,
  ClientInferResponseBody,
  ClientInferResponses,
  ServerInferRequest,
  ServerInferResponseBody,
  ServerInferResponses,
} from '@ts-rest/core';
import { describe, expectTypeOf, test } from 'vitest';
import type { z } from 'zod';
import { errorResponse } from './errors.js';
import {
  type contract,
  type Deprecation,
  type DeprecationHeaders,
  deprecationHeadersOf,
  type ErrorBody,
  type ErrorDetail,
  errorBodyWith,
  type GET_PET_DEPRECATION_HEADERS,
  type NewPet,
  type Pet,
  type PetStatus,
  type RouteMetadata,
} from './index.js';
import {
  type BuildOpenApiDocumentOptions,
  buildOpenApiDocument,
  buildOpenApiDocumentFor,
  type OpenAPIObject,
} from './openapi.js';

type Routes = typeof contract.pets;
type ListPets = Routes['listPets'];
type CreatePet = Routes['createPet'];
type GetPet = Routes['getPet'];

type ErrorWith<Code extends ErrorBody['code']> = {
  code: Code;
  message: string;
  status: number;
  details?: ErrorDetail[] | undefined;
};

describe('exported types', () => {
  test('Pet, NewPet and PetStatus', () => {
    expectTypeOf<PetStatus>().toEqualTypeOf<'available' | 'pending' | 'sold'>();
    expectTypeOf<Pet>().toEqualTypeOf<{
      id: number;
      name: string;
      categoryId: number;
      status: PetStatus;
    }>();
    expectTypeOf<NewPet>().toEqualTypeOf<{
      name: string;
      categoryId: number;
      status?: PetStatus | undefined;
    }>();
  });
});

describe('client', () => {
  test('listPets: query is optional limit (number or text), status and cursor', () => {
    expectTypeOf<ClientInferRequest<ListPets>['query']>().toEqualTypeOf<{
      limit?: string | number | undefined;
      status?: PetStatus | undefined;
      cursor?: string | undefined;
    }>();
    expectTypeOf<ClientInferRequest<ListPets>>().not.toHaveProperty('body');
    expectTypeOf<ClientInferResponseBody<ListPets, 200>>().toEqualTypeOf<Pet[]>();
    expectTypeOf<ClientInferResponseBody<ListPets, 400>>().toEqualTypeOf<
      ErrorWith<'validation_failed' | 'malformed_request'>
    >();
  });

  test('createPet: body is NewPet (name: string, categoryId: number, status optional)', () => {
    type Body = ClientInferRequest<CreatePet>['body'];
    expectTypeOf<Body>().toEqualTypeOf<NewPet>();
    expectTypeOf<Body['name']>().toEqualTypeOf<string>();
    expectTypeOf<Body['categoryId']>().toEqualTypeOf<number>();
    expectTypeOf<Body>().toHaveProperty('status').toEqualTypeOf<PetStatus | undefined>();
    expectTypeOf<{ name: string; categoryId: number }>().toExtend<Body>();
    expectTypeOf<{ name: string }>().not.toExtend<Body>();
    expectTypeOf<ClientInferRequest<CreatePet>['headers']>().toEqualTypeOf<{
      'idempotency-key'?: string | undefined;
    }>();
  });

  test('createPet: 201 body is Pet; 400 and 409 bodies carry their codes', () => {
    expectTypeOf<ClientInferResponseBody<CreatePet, 201>>().toEqualTypeOf<Pet>();
    expectTypeOf<ClientInferResponseBody<CreatePet, 400>>().toEqualTypeOf<
      ErrorWith<'validation_failed' | 'malformed_json' | 'malformed_request'>
    >();
    expectTypeOf<
      ClientInferResponseBody<CreatePet, 409>['code']
    >().toEqualTypeOf<'idempotency_key_reused'>();
  });

  test('getPet: petId path param; 200 body is Pet; 404 body code is not_found; 400 only malformed_request', () => {
    expectTypeOf<ClientInferRequest<GetPet>['params']>().toEqualTypeOf<{
      petId: string | number;
    }>();
    expectTypeOf<ClientInferResponseBody<GetPet, 200>>().toEqualTypeOf<Pet>();
    expectTypeOf<ClientInferResponseBody<GetPet, 404>['code']>().toEqualTypeOf<'not_found'>();
    expectTypeOf<
      ClientInferResponseBody<GetPet, 400>['code']
    >().toEqualTypeOf<'malformed_request'>();
  });

  test('every operation declares exactly its statuses (strict status codes)', () => {
    expectTypeOf<ClientInferResponses<ListPets>['status']>().toEqualTypeOf<
      200 | 400 | 401 | 429 | 431 | 500 | 503
    >();
    expectTypeOf<ClientInferResponses<CreatePet>['status']>().toEqualTypeOf<
      201 | 400 | 401 | 409 | 413 | 415 | 429 | 431 | 500 | 503
    >();
    expectTypeOf<ClientInferResponses<GetPet>['status']>().toEqualTypeOf<
      200 | 400 | 401 | 404 | 429 | 431 | 500 | 503
    >();
  });

  test('shared errors: 401 unauthorized; 429 rate_limited or temporarily_banned; 431 headers_too_large', () => {
    expectTypeOf<ClientInferResponseBody<GetPet, 401>['code']>().toEqualTypeOf<'unauthorized'>();
    expectTypeOf<ClientInferResponseBody<ListPets, 429>['code']>().toEqualTypeOf<
      'rate_limited' | 'temporarily_banned'
    >();
    expectTypeOf<
      ClientInferResponseBody<CreatePet, 500>['code']
    >().toEqualTypeOf<'internal_error'>();
    expectTypeOf<
      ClientInferResponseBody<CreatePet, 503>['code']
    >().toEqualTypeOf<'service_unavailable'>();
    expectTypeOf<
      ClientInferResponseBody<GetPet, 431>['code']
    >().toEqualTypeOf<'headers_too_large'>();
  });
});

describe('server', () => {
  test('requests arrive parsed: limit a number with its default, petId a number, status set', () => {
    expectTypeOf<ServerInferRequest<ListPets>['query']>().toEqualTypeOf<{
      limit: number;
      status?: PetStatus | undefined;
      cursor?: string | undefined;
    }>();
    expectTypeOf<ServerInferRequest<GetPet>['params']>().toEqualTypeOf<{ petId: number }>();
    expectTypeOf<ServerInferRequest<CreatePet>['body']>().toEqualTypeOf<{
      name: string;
      categoryId: number;
      status: PetStatus;
    }>();
    expectTypeOf<ServerInferRequest<CreatePet>['headers']>().toHaveProperty('idempotency-key');
  });

  test('handlers return a declared status with its body, 404 included', () => {
    type GetPetResponse = ServerInferResponses<GetPet>;
    expectTypeOf<{ status: 200; body: Pet }>().toExtend<GetPetResponse>();
    expectTypeOf<{
      status: 404;
      body: { code: 'not_found'; message: string; status: 404 };
    }>().toExtend<GetPetResponse>();
    expectTypeOf<{
      status: 404;
      body: { code: 'unauthorized'; message: string; status: 404 };
    }>().not.toExtend<GetPetResponse>();
    expectTypeOf<{ status: 409; body: unknown }>().not.toExtend<GetPetResponse>();
    expectTypeOf<ServerInferResponseBody<CreatePet, 201>>().toEqualTypeOf<Pet>();
    expectTypeOf<ServerInferResponses<CreatePet, 201>>().toEqualTypeOf<{
      status: 201;
      body: Pet;
    }>();
  });
});

describe('openapi', () => {
  test('buildOpenApiDocument takes an optional serverUrl', () => {
    expectTypeOf(buildOpenApiDocument)
      .parameter(0)
      .toEqualTypeOf<BuildOpenApiDocumentOptions | undefined>();
    expectTypeOf<BuildOpenApiDocumentOptions>().toEqualTypeOf<{ serverUrl?: string }>();
    expectTypeOf(buildOpenApiDocument).returns.toHaveProperty('paths');
  });
});

describe('route metadata', () => {
  test("each route's operationId is its key, typed", () => {
    expectTypeOf<Routes[keyof Routes]['metadata']['operationId']>().toEqualTypeOf<keyof Routes>();
    expectTypeOf<GetPet['metadata']['stability']>().toEqualTypeOf<'deprecated'>();
  });

  test('a deprecated route says when it was deprecated; a current one cannot', () => {
    type Responses = RouteMetadata['responses'];
    type Deprecated = { operationId: 'x'; stability: 'deprecated'; responses: Responses };
    expectTypeOf<Deprecated>().not.toExtend<RouteMetadata>();
    expectTypeOf<Deprecated & { deprecation: Deprecation }>().toExtend<RouteMetadata>();
    expectTypeOf<{
      operationId: 'x';
      stability: 'stable';
      responses: Responses;
      deprecation: Deprecation;
    }>().not.toExtend<RouteMetadata>();
  });

  test('deprecationHeadersOf takes any route of the contract', () => {
    type Route = Parameters<typeof deprecationHeadersOf>[0];
    expectTypeOf<Routes[keyof Routes]>().toExtend<Route>();
    expectTypeOf(deprecationHeadersOf).returns.toEqualTypeOf<DeprecationHeaders | undefined>();
    expectTypeOf<typeof GET_PET_DEPRECATION_HEADERS>().toExtend<DeprecationHeaders>();
  });

  test('errorResponse narrows the Error body to the codes it has examples of', () => {
    const notFound = errorResponse({
      name: 'NotFound',
      description: 'Not there',
      examples: { not_found: { message: 'No.' } },
    });
    expectTypeOf<z.infer<typeof notFound>['code']>().toEqualTypeOf<'not_found'>();
    const narrowed = errorBodyWith('not_found');
    expectTypeOf<z.infer<typeof notFound>>().toEqualTypeOf<z.infer<typeof narrowed>>();
  });
});

describe('openapi', () => {
  test('buildOpenApiDocumentFor takes any ts-rest router', () => {
    expectTypeOf(buildOpenApiDocumentFor).parameter(0).toEqualTypeOf<AppRouter>();
    expectTypeOf(buildOpenApiDocumentFor)
      .parameter(1)
      .toEqualTypeOf<BuildOpenApiDocumentOptions | undefined>();
    expectTypeOf(buildOpenApiDocumentFor).returns.toEqualTypeOf<OpenAPIObject>();
  });
});
