import { type AppRoute, type AppRouter, initContract } from '@ts-rest/core';
import type {
  HeaderObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { COMMON_RESPONSES } from './common-responses.js';
import { MALFORMED_REQUEST_EXAMPLE } from './error-messages.js';
import { errorBodyWith, errorResponse } from './errors.js';
import {
  API_VERSION,
  contract,
  deprecationHeadersOf,
  ERROR_STATUS,
  GET_PET_DEPRECATION,
  GET_PET_DEPRECATION_HEADERS,
  ListPetsQuerySchema,
  MAX_INTEGER_ID,
  NewPetSchema,
  PAGE_SIZE,
  PET_NAME_MAX_LENGTH,
  PET_STATUSES,
  PetSchema,
  type RouteMetadata,
} from './index.js';
import { buildOpenApiDocument, buildOpenApiDocumentFor } from './openapi.js';
import { type OperationsOf, operationsOf } from './operations.js';
import { petsRoutes } from './pets.js';

const document = buildOpenApiDocument();

/** Follows a local `$ref` (`#/components/...`) to what it names. */
function resolve<T>(value: T | ReferenceObject): T {
  if (typeof value !== 'object' || value === null || !('$ref' in value)) return value;
  const target = value.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], document);
  if (target === undefined) throw new Error(`unresolved ${value.$ref}`);
  return target as T;
}

/** `/v1/pets/:petId` as the document writes paths, `/v1/pets/{petId}`. */
const documentPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/**
 * Each operation of the contract as the document describes it, by name: walked from the contract,
 * so that a test of every operation covers one the contract gains.
 */
const operations = Object.fromEntries(
  operationsOf(contract).map(({ name, route }) => [
    name,
    document.paths[documentPath(route.path)]?.[route.method.toLowerCase()] as OperationObject,
  ]),
) as Record<keyof OperationsOf<typeof contract>, OperationObject>;
const allOperations = Object.entries(operations);

/** An operation's responses, each resolved when it is a reference to components.responses. */
const responsesOf = (operation: OperationObject) =>
  Object.entries(operation.responses as Record<string, ResponseObject | ReferenceObject>).map(
    ([status, response]) => [status, resolve<ResponseObject>(response)] as const,
  );

const response = (operation: OperationObject, status: string) =>
  resolve<ResponseObject>(operation.responses[status]);

const parameter = (operation: OperationObject, name: string) =>
  (operation.parameters ?? []).map((p) => resolve<ParameterObject>(p)).find((p) => p.name === name);

const header = (response: ResponseObject, name: string) => {
  const found = response.headers?.[name];
  return found && resolve<HeaderObject>(found);
};

const componentSchema = (name: string) => document.components?.schemas?.[name] as SchemaObject;
const property = (schema: string, name: string) =>
  componentSchema(schema).properties?.[name] as SchemaObject;

describe('document', () => {
  test('is OpenAPI 3 with info.title "Animal Store API" and info.version = API_VERSION', () => {
    expect(document.openapi).toMatch(/^3\.0\.\d+$/);
    expect(document.info.title).toBe('Animal Store API');
    expect(document.info.version).toBe(API_VERSION);
    expect(API_VERSION).toBe('1.0.0');
    expect(document.info.license).toMatchObject({ name: 'MIT' });
  });

  test("has exactly the contract's operations, each with its name as operationId", () => {
    const described = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual(
      operationsOf(contract)
        .map(({ route }) => `${route.method} ${documentPath(route.path)}`)
        .sort(),
    );
    for (const [operationId, operation] of allOperations) {
      expect(operation?.operationId).toBe(operationId);
    }
  });

  test('serves from "/" by default, or from the given origin', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const hosted = buildOpenApiDocument({ serverUrl: 'https://api.animal-store.test/' });
    expect(hosted.servers).toEqual([
      expect.objectContaining({ url: 'https://api.animal-store.test' }),
    ]);
  });

  test('is plain JSON, new on every call', () => {
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
    const other = buildOpenApiDocument();
    expect(other).toEqual(document);
    expect(other).not.toBe(document);
    expect(other.components).not.toBe(document.components);
  });

  test('every $ref resolves', () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.push(value);
          else walk(value);
        }
      }
    };
    walk(document);
    expect(refs.length).toBeGreaterThan(0);
    for (const $ref of refs) expect(() => resolve({ $ref })).not.toThrow();
  });
});

describe('operations', () => {
  test('the bearer security scheme applies to every operation', () => {
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    for (const [, operation] of allOperations) {
      expect(operation.security).toEqual([{ bearerAuth: [] }]);
    }
  });

  test('getPet is deprecated, the others are not', () => {
    expect(operations.getPet.deprecated).toBe(true);
    expect(operations.listPets.deprecated).toBeUndefined();
    expect(operations.createPet.deprecated).toBeUndefined();
  });

  test('every operation carries x-stability: stable, or deprecated for getPet', () => {
    expect(operations.listPets['x-stability']).toBe('stable');
    expect(operations.createPet['x-stability']).toBe('stable');
    expect(operations.getPet['x-stability']).toBe('deprecated');
  });

  test('every operation has a summary and a declared tag', () => {
    const tags = (document.tags ?? []).map((tag) => tag.name);
    for (const [, operation] of allOperations) {
      expect(operation.summary).toBeTruthy();
      expect(operation.tags).toEqual(['pets']);
      for (const tag of operation.tags ?? []) expect(tags).toContain(tag);
    }
  });

  test('each operation documents the responses its contract route declares', () => {
    for (const [operationId, operation] of allOperations) {
      const route = contract.pets[operationId as keyof typeof contract.pets];
      expect(Object.keys(operation.responses).sort()).toEqual(
        [...Object.keys(route.responses), 'default'].sort(),
      );
      for (const [, response] of responsesOf(operation)) {
        expect(response.description).not.toMatch(/^\d+$/);
      }
    }
  });
});

describe('parameters', () => {
  test('limit: optional integer 1..100, default 20', () => {
    expect(parameter(operations.listPets, 'limit')).toMatchObject({
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    expect(parameter(operations.listPets, 'limit')?.required).toBeUndefined();
  });

  test('status: optional enum of the pet statuses', () => {
    expect(parameter(operations.listPets, 'status')).toMatchObject({
      in: 'query',
      schema: { type: 'string', enum: [...PET_STATUSES] },
    });
    expect(parameter(operations.listPets, 'status')?.required).toBeUndefined();
  });

  test('cursor: optional string', () => {
    expect(parameter(operations.listPets, 'cursor')).toMatchObject({
      in: 'query',
      schema: { type: 'string' },
    });
  });

  test('petId: required integer int64 from 1', () => {
    expect(parameter(operations.getPet, 'petId')).toMatchObject({
      in: 'path',
      required: true,
      schema: { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_INTEGER_ID },
    });
  });

  test('Idempotency-Key: optional request header of createPet', () => {
    const key = parameter(operations.createPet, 'Idempotency-Key');
    expect(key).toMatchObject({ in: 'header', schema: { type: 'string' } });
    expect(key?.required).toBeUndefined();
    expect(key?.description).toMatch(/Idempotent-Replayed/);
  });

  test('X-Request-Id: optional request header of every operation', () => {
    for (const [, operation] of allOperations) {
      expect(parameter(operation, 'X-Request-Id')).toMatchObject({ in: 'header' });
    }
  });
});

describe('schemas', () => {
  test('createPet takes a required NewPet body', () => {
    expect(operations.createPet.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
    });
  });

  test('NewPet: name 1..100, categoryId int64 1..2^53-1, status optional (available when omitted)', () => {
    const newPet = componentSchema('NewPet');
    expect(newPet.required).toEqual(['name', 'categoryId']);
    expect(newPet.additionalProperties).toBe(false);
    expect(property('NewPet', 'name')).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: PET_NAME_MAX_LENGTH,
    });
    expect(property('NewPet', 'categoryId')).toMatchObject({
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: 9007199254740991,
    });
    expect(property('NewPet', 'status')).toMatchObject({
      type: 'string',
      enum: ['available', 'pending', 'sold'],
    });
    // openapi-typescript makes a property with a `default` required: the description says it.
    expect(property('NewPet', 'status')).not.toHaveProperty('default');
    expect(property('NewPet', 'status').description).toMatch(/`available` when omitted/);
    expect(NewPetSchema.parse({ name: 'Rex', categoryId: 1 }).status).toBe('available');
  });

  test('NewPet.name: its pattern finds a character that is not Unicode White_Space, as the server requires', () => {
    const name = property('NewPet', 'name');
    // OpenAPI 3.0 patterns are ECMA-262 without flags; validators such as Ajv add the u flag.
    const patterns = [new RegExp(name.pattern ?? ''), new RegExp(name.pattern ?? '', 'u')];
    const serverAccepts = (text: string) =>
      NewPetSchema.safeParse({ name: text, categoryId: 1 }).success;
    const disagreements: string[] = [];
    for (let codePoint = 0; codePoint <= 0xffff; codePoint += 1) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const text = String.fromCodePoint(codePoint);
      const accepted = serverAccepts(text);
      if (patterns.some((pattern) => pattern.test(text) !== accepted)) {
        disagreements.push(`U+${codePoint.toString(16)}`);
      }
    }
    expect(disagreements).toEqual([]);
    for (const text of ['🐕', ' \u00a0x', '\ufeff', '\u200b', '  \u3000 ', '\t\n\r\u0085']) {
      for (const pattern of patterns) expect(pattern.test(text), text).toBe(serverAccepts(text));
    }
    expect(name.description).toMatch(/White_Space/);
    expect(name.description).toMatch(/lone surrogates/);
    // Some 63,000 parses: about a second, and past vitest's 5 s default on a slow shared machine.
  }, 60_000);

  test('Pet: id, name, categoryId and status, all required', () => {
    expect(componentSchema('Pet').required).toEqual(['id', 'name', 'categoryId', 'status']);
    expect(property('Pet', 'id')).toMatchObject({ type: 'integer', format: 'int64', minimum: 1 });
    expect(property('Pet', 'categoryId')).toMatchObject({ type: 'integer', format: 'int64' });
  });

  test('success bodies reference Pet', () => {
    const body = (operation: OperationObject, status: string) =>
      (operation.responses[status] as ResponseObject).content?.['application/json']?.schema;
    expect(body(operations.listPets, '200')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Pet' },
    });
    expect(body(operations.createPet, '201')).toEqual({ $ref: '#/components/schemas/Pet' });
    expect(body(operations.getPet, '200')).toEqual({ $ref: '#/components/schemas/Pet' });
  });

  test('one Error schema: code, message and status required, code of the full fixed set', () => {
    const error = componentSchema('Error');
    expect(error.required).toEqual(['code', 'message', 'status']);
    expect(property('Error', 'code')).toMatchObject({
      type: 'string',
      enum: Object.keys(ERROR_STATUS),
    });
    expect(property('Error', 'status')).toMatchObject({ type: 'integer' });
    expect(property('Error', 'details')).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/ErrorDetail' },
    });
    expect(componentSchema('ErrorDetail').required).toEqual(['path', 'message']);
  });

  test('every error response is a shared components.responses entry over the Error schema; none is inline', () => {
    for (const [, operation] of allOperations) {
      for (const [status, value] of Object.entries(operation.responses)) {
        if (status !== 'default' && Number(status) < 400) continue;
        expect(value, status).toEqual({
          $ref: expect.stringMatching(/^#\/components\/responses\/[A-Za-z]+$/),
        });
      }
      expect(operation.responses.default).toEqual({
        $ref: '#/components/responses/UnexpectedError',
      });
    }
    const shared = Object.values(document.components?.responses ?? {}) as ResponseObject[];
    expect(shared.length).toBeGreaterThan(5);
    for (const response of shared) {
      expect(response.content?.['application/json']?.schema).toEqual({
        $ref: '#/components/schemas/Error',
      });
    }
  });

  test("each operation's error responses declare, by their examples, exactly the codes its contract route carries", () => {
    for (const [operationId, operation] of allOperations) {
      const route = contract.pets[operationId as keyof typeof contract.pets];
      for (const [status, response] of responsesOf(operation)) {
        if (status === 'default' || Number(status) < 400) continue;
        const zodSchema = (route.responses as Record<string, unknown>)[status] as z.AnyZodObject;
        const examples = response.content?.['application/json']?.examples ?? {};
        expect(Object.keys(examples).sort(), `${operationId} ${status}`).toEqual(
          [...zodSchema.shape.code.options].sort(),
        );
        for (const [code, example] of Object.entries(examples)) {
          const { value } = example as { value: unknown };
          expect(zodSchema.parse(value)).toEqual(value);
          expect(value).toMatchObject({ code, status: Number(status) });
        }
      }
    }
  });

  test('every operation declares 400 (malformed_request included), 401, 429, 431, 500 and 503', () => {
    for (const [operationId, operation] of allOperations) {
      for (const status of ['400', '401', '429', '431', '500', '503']) {
        expect(operation.responses[status], `${operationId} ${status}`).toBeDefined();
      }
      const examples = response(operation, '400').content?.['application/json']?.examples ?? {};
      expect(Object.keys(examples)).toContain('malformed_request');
    }
    expect(Object.keys(operations.createPet.responses)).toEqual(
      expect.arrayContaining(['409', '413', '415']),
    );
    expect(Object.keys(operations.getPet.responses)).toContain('404');
  });

  test('the documented bounds are the bounds the zod schemas enforce', () => {
    const limit = parameter(operations.listPets, 'limit')?.schema as SchemaObject;
    const limitOk = (value: number) => ListPetsQuerySchema.safeParse({ limit: `${value}` }).success;
    expect([limit.minimum, limit.maximum]).toEqual([PAGE_SIZE.min, PAGE_SIZE.max]);
    expect([limitOk(PAGE_SIZE.min - 1), limitOk(PAGE_SIZE.min)]).toEqual([false, true]);
    expect([limitOk(PAGE_SIZE.max), limitOk(PAGE_SIZE.max + 1)]).toEqual([true, false]);
    expect(ListPetsQuerySchema.parse({}).limit).toBe(limit.default);

    const name = property('NewPet', 'name');
    const nameOk = (length: number) =>
      NewPetSchema.safeParse({ name: '🐕'.repeat(length), categoryId: 1 }).success;
    expect([nameOk(0), nameOk(1)]).toEqual([false, true]);
    expect([nameOk(name.maxLength ?? 0), nameOk((name.maxLength ?? 0) + 1)]).toEqual([true, false]);

    const petId = parameter(operations.getPet, 'petId')?.schema as SchemaObject;
    const petIdOk = (value: number) =>
      contract.pets.getPet.pathParams.safeParse({ petId: `${value}` }).success;
    expect([petIdOk((petId.minimum ?? 0) - 1), petIdOk(petId.minimum ?? 0)]).toEqual([false, true]);
    expect(petIdOk(petId.maximum ?? 0)).toBe(true);
  });
});

describe('response headers', () => {
  test('every response of every operation carries the X-RateLimit-* headers and X-Request-Id', () => {
    for (const [, operation] of allOperations) {
      for (const [, response] of responsesOf(operation)) {
        for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
          expect(header(response, name)).toMatchObject({
            required: true,
            schema: { type: 'integer' },
          });
        }
        expect(header(response, 'X-RateLimit-Reset')?.description).toMatch(/Unix time in seconds/);
        expect(header(response, 'X-Request-Id')).toMatchObject({ schema: { type: 'string' } });
      }
    }
  });

  test('headers always sent are references to components.headers; the others are written out, not required', () => {
    const responses = [
      ...allOperations.flatMap(([, operation]) => responsesOf(operation).map(([, r]) => r)),
      ...(Object.values(document.components?.responses ?? {}) as ResponseObject[]),
    ];
    const optional: string[] = [];
    for (const response of responses) {
      for (const [name, value] of Object.entries(response.headers ?? {})) {
        if ('$ref' in value) {
          expect(value.$ref).toMatch(/^#\/components\/headers\//);
          expect(resolve<HeaderObject>(value).required, name).toBe(true);
        } else {
          expect(value.required, name).toBeUndefined();
          optional.push(name);
        }
      }
    }
    expect([...new Set(optional)].sort()).toEqual(['Idempotent-Replayed', 'Link', 'Retry-After']);
  });

  test('429 carries Retry-After in whole seconds', () => {
    for (const [, operation] of allOperations) {
      expect(header(response(operation, '429'), 'Retry-After')).toMatchObject({
        required: true,
        schema: { type: 'integer', minimum: 1 },
      });
    }
  });

  test('503 may carry Retry-After in whole seconds: a busy server sends it, an unreachable database not', () => {
    for (const [, operation] of allOperations) {
      const retryAfter = header(response(operation, '503'), 'Retry-After');
      expect(retryAfter).toMatchObject({ schema: { type: 'integer', minimum: 1 } });
      expect(retryAfter?.required).toBeUndefined();
    }
  });

  test('401 carries the WWW-Authenticate challenge', () => {
    for (const [, operation] of allOperations) {
      expect(header(response(operation, '401'), 'WWW-Authenticate')?.example).toMatch(
        /^Bearer realm="animal-store"/,
      );
    }
  });

  test('listPets 200 may carry Link rel="next"; no other listPets response does', () => {
    for (const [status, response] of responsesOf(operations.listPets)) {
      const link = header(response, 'Link');
      if (status === '200') {
        expect(link?.description).toMatch(/rel="next"/);
        expect(link?.required).toBeUndefined();
      } else expect(link).toBeUndefined();
    }
  });

  test('createPet 201 carries Location and may carry Idempotent-Replayed', () => {
    const created = response(operations.createPet, '201');
    expect(header(created, 'Location')).toMatchObject({ required: true, example: '/v1/pets/42' });
    expect(header(created, 'Idempotent-Replayed')).toMatchObject({
      schema: { type: 'string', enum: ['true'] },
    });
  });

  test('getPet 200 carries Deprecation, Sunset and Link rel="successor-version"; its description says every response does', () => {
    expect(operations.getPet.description).toMatch(/errors included.*`Deprecation`, `Sunset`/);
    const ok = response(operations.getPet, '200');
    expect(header(ok, 'Deprecation')).toMatchObject({ required: true, example: '@1735689600' });
    expect(header(ok, 'Sunset')).toMatchObject({
      required: true,
      example: 'Thu, 05 Dec 2030 00:00:00 GMT',
    });
    expect(header(ok, 'Link')).toMatchObject({
      required: true,
      example: '</v1/pets>; rel="successor-version"',
    });
    for (const operation of [operations.listPets, operations.createPet]) {
      for (const [, other] of responsesOf(operation)) {
        expect(header(other, 'Deprecation')).toBeUndefined();
      }
    }
  });
});

describe('built from the contract', () => {
  const c = initContract();
  const contractWith = (routes: Record<string, unknown>) =>
    c.router(
      { pets: { ...petsRoutes, ...routes } as typeof petsRoutes },
      { pathPrefix: '/v1', strictStatusCodes: true, commonResponses: COMMON_RESPONSES },
    );

  const adoptPet = {
    method: 'POST',
    path: '/pets/:petId/adoption',
    pathParams: petsRoutes.getPet.pathParams,
    body: z.object({ adopter: z.string().describe('Who takes the animal home') }),
    summary: 'Adopt an animal',
    description: 'Marks the animal as sold to its adopter.',
    responses: {
      200: PetSchema,
      400: errorResponse({
        name: 'InvalidAdoption',
        description: 'The adopter is missing, or the body is not JSON',
        examples: {
          validation_failed: {
            message: 'The request is invalid: adopter.',
            details: [{ path: 'adopter', message: 'is required' }],
          },
          malformed_json: { message: 'The request body could not be read as JSON.' },
          malformed_request: MALFORMED_REQUEST_EXAMPLE,
        },
      }),
      404: petsRoutes.getPet.responses[404],
    },
    metadata: {
      operationId: 'adoptPet',
      stability: 'beta',
      requestBody: { description: 'Who adopts the animal' },
      responses: { 200: { description: 'The adopted animal' } },
    } satisfies RouteMetadata,
  } as const;

  test("every route's operationId is its key in the contract", () => {
    for (const [key, route] of Object.entries(contract.pets)) {
      expect(route.metadata.operationId).toBe(key);
    }
  });

  test("a second operation deprecated on other dates keeps its own headers, under components named after it; getPet's stay as they were", () => {
    const retired = {
      ...adoptPet,
      deprecated: true,
      metadata: {
        ...adoptPet.metadata,
        stability: 'deprecated',
        deprecation: {
          deprecatedAt: new Date('2026-06-01T00:00:00Z'),
          sunsetAt: new Date('2031-06-01T00:00:00Z'),
          successor: '/v1/pets',
        },
      } satisfies RouteMetadata,
    } as const;
    const extended = buildOpenApiDocumentFor(contractWith({ adoptPet: retired }));
    const adoption = extended.paths['/v1/pets/{petId}/adoption']?.post as OperationObject;
    const adopted = adoption.responses[200] as ResponseObject;
    expect(adopted.headers?.Deprecation).toEqual({
      $ref: '#/components/headers/AdoptPetDeprecation',
    });
    expect(extended.components?.headers?.AdoptPetDeprecation).toMatchObject({
      example: '@1780272000',
    });
    expect(extended.components?.headers?.Deprecation).toEqual(
      document.components?.headers?.Deprecation,
    );
  });

  test('a route added to the contract is in the document, with nothing to change in the builder', () => {
    const extended = buildOpenApiDocumentFor(contractWith({ adoptPet }));
    const adoption = extended.paths['/v1/pets/{petId}/adoption']?.post as OperationObject;
    expect(adoption).toMatchObject({
      operationId: 'adoptPet',
      summary: 'Adopt an animal',
      description: 'Marks the animal as sold to its adopter.',
      tags: ['pets'],
      security: [{ bearerAuth: [] }],
      'x-stability': 'beta',
      requestBody: {
        description: 'Who adopts the animal',
        required: true,
        content: { 'application/json': { schema: { type: 'object', required: ['adopter'] } } },
      },
    });
    expect(adoption.deprecated).toBeUndefined();
    expect(adoption.parameters).toEqual([
      operations.getPet.parameters?.[0],
      { $ref: '#/components/parameters/RequestId' },
    ]);
    const { 200: adopted, ...errors } = adoption.responses;
    expect(adopted).toMatchObject({
      description: 'The adopted animal',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
    });
    // The headers of every response, and none of getPet's deprecation.
    expect(Object.keys(adopted.headers)).toEqual([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
    ]);
    const { 200: _, ...getPetErrors } = operations.getPet.responses;
    expect(errors).toEqual({
      ...getPetErrors,
      400: { $ref: '#/components/responses/InvalidAdoption' },
    });
    const invalid = extended.components?.responses?.InvalidAdoption as ResponseObject;
    expect(Object.keys(invalid.content?.['application/json']?.examples ?? {})).toEqual([
      'validation_failed',
      'malformed_json',
      'malformed_request',
    ]);
    // What was there is as it was.
    expect(extended.paths['/v1/pets']).toEqual(document.paths['/v1/pets']);
    expect(extended.paths['/v1/pets/{petId}']).toEqual(document.paths['/v1/pets/{petId}']);
    expect(extended.components?.schemas).toEqual(document.components?.schemas);
  });

  test('each error response is shared under its name, with the headers its documentation adds', () => {
    const unauthorized = document.components?.responses?.Unauthorized as ResponseObject;
    expect(unauthorized.headers?.['WWW-Authenticate']).toEqual({
      $ref: '#/components/headers/WwwAuthenticate',
    });
    expect(Object.keys(document.components?.responses ?? {}).sort()).toEqual(
      [
        'HeadersTooLarge',
        'IdempotencyKeyReused',
        'InternalError',
        'InvalidPetBody',
        'InvalidQuery',
        'MalformedRequest',
        'NotFound',
        'PayloadTooLarge',
        'ServiceUnavailable',
        'TooManyRequests',
        'Unauthorized',
        'UnexpectedError',
        'UnsupportedMediaType',
      ].sort(),
    );
  });

  const getThings = {
    method: 'GET',
    path: '/things',
    summary: 'List things',
    responses: { 200: PetSchema },
    metadata: {
      operationId: 'getThings',
      stability: 'stable',
      responses: { 200: { description: 'The things' } },
    },
  };
  const documentOf = (route: Record<string, unknown>) => () =>
    buildOpenApiDocumentFor({ things: { getThings: route as AppRoute } } satisfies AppRouter);

  test('refuses a route whose metadata is not RouteMetadata', () => {
    expect(documentOf({ ...getThings, metadata: undefined })).toThrow(/metadata needs/);
    expect(documentOf({ ...getThings, metadata: { operationId: 'getThings' } })).toThrow(
      /metadata needs/,
    );
  });

  test('refuses a success response its metadata does not describe', () => {
    expect(documentOf({ ...getThings, responses: { 200: PetSchema, 202: PetSchema } })).toThrow(
      /does not describe its 202 response/,
    );
  });

  test('refuses an error response not made by errorResponse()', () => {
    const responses = { 200: PetSchema, 404: errorBodyWith('not_found') };
    expect(documentOf({ ...getThings, responses })).toThrow(/made by errorResponse/);
  });

  test('refuses an error response whose codes travel with another status', () => {
    const responses = {
      200: PetSchema,
      404: errorResponse({
        name: 'Gone',
        description: 'Not there',
        examples: { not_found: { message: 'No.' }, unauthorized: { message: 'Who?' } },
      }),
    };
    expect(documentOf({ ...getThings, responses })).toThrow(
      /codes of other statuses: unauthorized/,
    );
  });

  test('refuses two different definitions under one component name', () => {
    const responses = {
      200: PetSchema,
      404: errorResponse({
        name: 'NotFound',
        description: 'Another text',
        examples: { not_found: { message: 'No.' } },
      }),
    };
    expect(() =>
      buildOpenApiDocumentFor(contractWith({ getThings: { ...getThings, responses } })),
    ).toThrow(/components.responses.NotFound has two different definitions/);
  });

  test('refuses a deprecated route without a deprecation, and a deprecation on a current one', () => {
    expect(documentOf({ ...getThings, deprecated: true })).toThrow(/deprecated route/);
    const metadata = { ...getThings.metadata, deprecation: GET_PET_DEPRECATION };
    expect(documentOf({ ...getThings, metadata })).toThrow(/deprecated route/);
  });

  test("a deprecated route's success responses carry the headers its deprecation gives the server to send", () => {
    const headers = response(operations.getPet, '200').headers ?? {};
    for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) {
      expect(header(response(operations.getPet, '200'), name)?.example).toBe(value);
      expect(headers[name]).toHaveProperty('$ref');
    }
    expect(deprecationHeadersOf(contract.pets.getPet)).toEqual(GET_PET_DEPRECATION_HEADERS);
    expect(deprecationHeadersOf(contract.pets.listPets)).toBeUndefined();
    expect(deprecationHeadersOf(contract.pets.createPet)).toBeUndefined();
    expect(operations.getPet.description).toMatch(/since 2025-01-01 and removed on 2030-12-05/);
  });
});
