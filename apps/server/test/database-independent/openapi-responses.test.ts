/**
 * The OpenAPI document against the running server: every error the server can send for an
 * operation (and its success) is probed over HTTP, and the body is validated with Ajv against
 * what the served document declares for that operation and status (or its `default`); its
 * code must be one the declared response's examples name, and the headers it declares as
 * required must be there. So the document and the server cannot drift apart.
 */
import { type Contract, contract, operationsOf } from '@animal-store/contract';
import type { AppRoute } from '@ts-rest/core';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateOf } from '../../src/http/routes.js';
import { sendRaw } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

type Json = Record<string, unknown>;

/** The name of every operation of a contract, however deep its routers nest. */
type OperationNameOf<Router> = {
  [Key in keyof Router]: Router[Key] extends AppRoute ? Key : OperationNameOf<Router[Key]>;
}[keyof Router];
type OperationId = OperationNameOf<Contract>;

interface Answer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/**
 * A request each operation answers with success: its path parameters and body. Typed by the
 * contract's operations, so that an operation added to the contract fails the type check until
 * it is probed here too.
 */
const VALID_REQUESTS: Record<OperationId, { params?: Record<string, string>; body?: unknown }> = {
  listPets: {},
  createPet: { body: { name: 'Probe', categoryId: 1 } },
  getPet: { params: { petId: '1' } },
};

/** Each operation of the contract, where the document has it, and a request it answers with success. */
const OPERATIONS = Object.fromEntries(
  operationsOf(contract).map(({ name, route }) => {
    const valid = VALID_REQUESTS[name as OperationId];
    const target = route.path.replace(/:(\w+)/g, (_, param: string) => valid.params?.[param] ?? '');
    const success = Math.min(
      ...Object.keys(route.responses)
        .map(Number)
        .filter((s) => s < 300),
    );
    return [
      name,
      {
        method: route.method.toLowerCase(),
        path: templateOf(route.path),
        target,
        success,
        ...valid,
      },
    ];
  }),
) as Record<
  OperationId,
  { method: string; path: string; target: string; success: number; body?: unknown }
>;

let api: TestServer;
let document: Json;
let ajv: Ajv;
/** When set, every statement the server's database client runs fails with this. */
let fault: (() => Error) | undefined;

beforeAll(async () => {
  api = await startTestServer({
    onQuery: () => {
      if (fault) throw fault();
    },
  });
  document = await (await api.request('/v1/openapi.json')).json();
  // The document is OpenAPI 3.0: its schemas are JSON Schema plus `example`, and its formats
  // (int64, uri-reference) are documentation; everything else stays strict.
  ajv = new Ajv({ strict: true, allErrors: true, formats: { int64: true, 'uri-reference': true } });
  ajv.addKeyword('example');
  const schemas = ((document.components as Json).schemas ?? {}) as Json;
  for (const [name, schema] of Object.entries(schemas)) {
    ajv.addSchema(withSchemaIds(schema) as Json, `${SCHEMA_ID}${name}`);
  }
  // One animal for getPet, and the page-cursor secret and the key's lookup done before faults.
  expect(
    (await api.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 }, method: 'POST' }))
      .status,
  ).toBe(201);
  expect((await api.request('/v1/pets')).status).toBe(200);
});
afterAll(() => api?.close());

/** Each component schema is added to Ajv under this prefix, and references to it point there. */
const SCHEMA_ID = 'urn:animal-store:schemas:';
const withSchemaIds = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${SCHEMA_ID}`));

const pointerPart = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function lookup(pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
}

/** The response the document declares for an operation and status, and where it lives. */
function declaredResponse(operationId: OperationId, status: number) {
  const { method, path } = OPERATIONS[operationId];
  const responses = `/paths/${pointerPart(path)}/${method}/responses`;
  const declared =
    (lookup(responses) as Json)[String(status)] === undefined ? 'default' : String(status);
  let pointer = `${responses}/${declared}`;
  const value = lookup(pointer) as Json;
  if (typeof value.$ref === 'string') pointer = value.$ref.slice(1);
  return { pointer, response: lookup(pointer) as Json };
}

const validators = new Map<string, ValidateFunction>();

/** Ajv's validator for the JSON body of the response at `pointer`. */
function validatorFor(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    const schema = lookup(`${pointer}/content/${pointerPart('application/json')}/schema`);
    expect(schema, `${pointer} declares no JSON body`).toBeDefined();
    validate = ajv.compile(withSchemaIds(schema) as Json);
    validators.set(pointer, validate);
  }
  return validate;
}

function resolveHeader(header: Json): Json {
  return typeof header.$ref === 'string' ? (lookup(header.$ref.slice(1)) as Json) : header;
}

/** Checks one answer against the document's declaration for the operation and its status. */
function expectDeclared(
  operationId: OperationId,
  answer: Answer,
  expected: { status: number; code?: string },
) {
  const label = `${operationId} ${answer.status} ${answer.body.slice(0, 200)}`;
  expect(answer.status, label).toBe(expected.status);
  expect(answer.headers['content-type'], label).toMatch(/^application\/json/);
  const body: unknown = JSON.parse(answer.body);
  const { pointer, response } = declaredResponse(operationId, answer.status);
  expect(pointer, `${label}: declared only by default`).not.toMatch(/default$|UnexpectedError$/);
  const validate = validatorFor(pointer);
  expect(validate(body), `${label}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  if (expected.code !== undefined) {
    expect(body, label).toMatchObject({ code: expected.code, status: answer.status });
    const content = (response.content as Json)['application/json'] as Json;
    expect(
      Object.keys((content.examples as Json | undefined) ?? {}),
      `${label}: code not declared`,
    ).toContain(expected.code);
  }
  for (const [name, header] of Object.entries((response.headers as Json | undefined) ?? {})) {
    if (resolveHeader(header as Json).required === true) {
      expect(answer.headers[name.toLowerCase()], `${label}: required header ${name}`).toBeTruthy();
    }
  }
}

async function fetched(path: string, init?: Parameters<TestServer['request']>[1]): Promise<Answer> {
  const res = await api.request(path, init);
  return {
    status: res.status,
    headers: Object.fromEntries(
      [...res.headers].map(([name, value]) => [name.toLowerCase(), value]),
    ),
    body: await res.text(),
  };
}

/** One raw request to an operation, with the given extra head lines. */
function raw(
  operationId: OperationId,
  { target, head = '', hostLines = 'Host: localhost\r\n', key = api.apiKey } = {} as {
    target?: string;
    head?: string;
    hostLines?: string;
    key?: string;
  },
) {
  const operation = OPERATIONS[operationId];
  const body = operation.body === undefined ? '' : JSON.stringify(operation.body);
  const bodyHead = body
    ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`
    : '';
  return sendRaw(
    api.port,
    `${operation.method.toUpperCase()} ${target ?? operation.target} HTTP/1.1\r\n${hostLines}Authorization: Bearer ${key}\r\n${bodyHead}${head}Connection: close\r\n\r\n${body}`,
  );
}

function send(operationId: OperationId, init: Parameters<TestServer['request']>[1] = {}) {
  const { method, target, body } = OPERATIONS[operationId];
  return fetched(target, { method: method.toUpperCase(), json: body, ...init });
}

const ALL = Object.keys(OPERATIONS) as OperationId[];

it('probes every operation of the contract, and the document has each where the contract puts it', () => {
  expect(Object.keys(VALID_REQUESTS).sort()).toEqual([...ALL].sort());
  for (const operationId of ALL) {
    const { method, path } = OPERATIONS[operationId];
    expect(lookup(`/paths/${pointerPart(path)}/${method}/operationId`), operationId).toBe(
      operationId,
    );
  }
});

describe.each(ALL)('%s: what the server sends is what the document declares', (operationId) => {
  it('success', async () => {
    expectDeclared(operationId, await send(operationId), {
      status: OPERATIONS[operationId].success,
    });
  });

  it('400 malformed_request: two Host headers, or a "#" in the target', async () => {
    expectDeclared(operationId, await raw(operationId, { hostLines: 'Host: a\r\nHost: b\r\n' }), {
      status: 400,
      code: 'malformed_request',
    });
    expectDeclared(
      operationId,
      await raw(operationId, { target: `${OPERATIONS[operationId].target}#x` }),
      {
        status: 400,
        code: 'malformed_request',
      },
    );
  });

  it('401 unauthorized: no key, or an unknown one', async () => {
    expectDeclared(operationId, await send(operationId, { apiKey: null }), {
      status: 401,
      code: 'unauthorized',
    });
    expectDeclared(operationId, await send(operationId, { apiKey: 'not-a-key' }), {
      status: 401,
      code: 'unauthorized',
    });
  });

  it('429 rate_limited: over the key’s per-minute quota', async () => {
    const apiKey = await api.createKey({
      label: 'one a minute',
      plan: 'enterprise',
      quota: { perMinute: 1, perDay: 100 },
    });
    // Both requests in one minute: the server's clock stands still.
    await send(operationId, { apiKey });
    expectDeclared(operationId, await send(operationId, { apiKey }), {
      status: 429,
      code: 'rate_limited',
    });
  });

  it('431 headers_too_large: over 16 KiB in many small headers, or in one the HTTP parser refuses', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => `X-H${i}: ${'v'.repeat(8)}\r\n`).join('');
    expectDeclared(operationId, await raw(operationId, { head: many }), {
      status: 431,
      code: 'headers_too_large',
    });
    expectDeclared(
      operationId,
      await raw(operationId, { head: `X-Big: ${'a'.repeat(17 * 1024)}\r\n` }),
      {
        status: 431,
        code: 'headers_too_large',
      },
    );
  });

  it('500 internal_error and 503 service_unavailable: the database fails under the request', async () => {
    try {
      fault = () => new Error('injected fault');
      expectDeclared(operationId, await send(operationId), { status: 500, code: 'internal_error' });
      fault = () => new Error('Connection terminated unexpectedly');
      expectDeclared(operationId, await send(operationId), {
        status: 503,
        code: 'service_unavailable',
      });
    } finally {
      fault = undefined;
    }
  });
});

describe('errors of one operation', () => {
  it('listPets 400 validation_failed: a bad limit or a cursor the server did not issue', async () => {
    for (const query of ['limit=0', 'limit=abc', 'status=gone', 'cursor=nope', 'limit=1&limit=2']) {
      expectDeclared('listPets', await fetched(`/v1/pets?${query}`), {
        status: 400,
        code: 'validation_failed',
      });
    }
  });

  it('createPet 400 validation_failed and malformed_json', async () => {
    for (const json of [
      {},
      { name: ' ', categoryId: 1 },
      { name: 'Rex', categoryId: 1, extra: 1 },
      [],
    ]) {
      expectDeclared('createPet', await send('createPet', { json }), {
        status: 400,
        code: 'validation_failed',
      });
    }
    expectDeclared(
      'createPet',
      await send('createPet', {
        json: { name: 'Rex', categoryId: 1 },
        headers: { 'idempotency-key': 'é' },
      }),
      {
        status: 400,
        code: 'validation_failed',
      },
    );
    expectDeclared(
      'createPet',
      await send('createPet', {
        json: undefined,
        body: '{',
        headers: { 'content-type': 'application/json' },
      }),
      { status: 400, code: 'malformed_json' },
    );
  });

  it('createPet 409 idempotency_key_reused', async () => {
    const headers = { 'idempotency-key': `probe-${Date.now()}` };
    expect(
      (await send('createPet', { headers, json: { name: 'First', categoryId: 1 } })).status,
    ).toBe(201);
    const replayed = await send('createPet', { headers, json: { name: 'First', categoryId: 1 } });
    expectDeclared('createPet', replayed, { status: 201 });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expectDeclared(
      'createPet',
      await send('createPet', { headers, json: { name: 'Second', categoryId: 1 } }),
      {
        status: 409,
        code: 'idempotency_key_reused',
      },
    );
  });

  it('createPet 413 payload_too_large and 415 unsupported_media_type', async () => {
    expectDeclared(
      'createPet',
      await send('createPet', { json: { name: 'x'.repeat(17 * 1024), categoryId: 1 } }),
      {
        status: 413,
        code: 'payload_too_large',
      },
    );
    for (const contentType of ['text/plain', 'application/json; charset=utf-16']) {
      expectDeclared(
        'createPet',
        await send('createPet', {
          json: undefined,
          body: '{"name":"Rex","categoryId":1}',
          headers: { 'content-type': contentType },
        }),
        { status: 415, code: 'unsupported_media_type' },
      );
    }
  });

  it('getPet 404 not_found: no such animal, or an id that names none', async () => {
    for (const petId of ['999999', '0', 'abc', '9007199254740992']) {
      expectDeclared('getPet', await fetched(`/v1/pets/${petId}`), {
        status: 404,
        code: 'not_found',
      });
    }
  });

  it('listPets 200 with a next page: the Link header has the shape of the documented example', async () => {
    for (const name of ['A', 'B'])
      await api.request('/v1/pets', { method: 'POST', json: { name, categoryId: 1 } });
    const page = await fetched('/v1/pets?limit=1&status=available');
    expectDeclared('listPets', page, { status: 200 });
    const example = String(
      ((lookup('/paths/~1v1~1pets/get/responses/200/headers') as Json).Link as Json).example,
    );
    // Same parameters in the same order, and a cursor of the same form: digits, a dot, 22 base64url.
    const shape = (link: string) =>
      link
        .replace(/^<[a-z]+:\/\/[^/]+/, '<ORIGIN')
        .replace(/=\d+/g, '=N')
        .replace(/\.[A-Za-z0-9_-]{22}(?=>)/, '.SIGNATURE');
    expect(page.headers.link).toBeDefined();
    expect(shape(page.headers.link ?? '')).toBe(shape(example));
    expect(shape(example)).toBe(
      '<ORIGIN/v1/pets?limit=N&status=available&cursor=N.SIGNATURE>; rel="next"',
    );
  });
});
