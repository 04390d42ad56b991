/**
 * The gate on the OpenAPI document the last release shipped: each fixture changes a copy of it
 * the way a change of the contract would, and the gate must call it breaking, or let it through.
 * An edit whose target the document no longer has fails, naming it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiChange } from './api-change.js';
import { openApiChanges } from './openapi-changes.js';
import { REPOSITORY_ROOT } from './published-packages.js';

// biome-ignore lint/suspicious/noExplicitAny: fixtures edit the document by its keys
type Document = any;

const RELEASED: Document = JSON.parse(
  readFileSync(join(REPOSITORY_ROOT, 'packages/contract/api/released/openapi.json'), 'utf8'),
);

function edited(edit: (document: Document) => void): Document {
  const copy = structuredClone(RELEASED);
  edit(copy);
  return copy;
}

function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the released document has no ${what}`);
  return value;
}

const operation = (document: Document, path: string, method: string) =>
  present(document.paths[path]?.[method], `${method.toUpperCase()} ${path}`);
const parameter = (document: Document, path: string, method: string, name: string) =>
  present(
    operation(document, path, method).parameters.find(
      (each: { name?: string }) => each.name === name,
    ),
    `parameter ${name} of ${method.toUpperCase()} ${path}`,
  );
const schema = (document: Document, name: string) =>
  present(document.components.schemas[name], `schema ${name}`);
const errorExamples = (document: Document, response: string) =>
  present(
    document.components.responses[response]?.content['application/json'].examples,
    `response ${response}`,
  );

const lines = (changes: readonly ApiChange[], impact: ApiChange['impact']) =>
  changes
    .filter((change) => change.impact === impact)
    .map(({ subject, change }) => `${subject}: ${change}`);

describe('the gate calls breaking', () => {
  it.each<[string, (document: Document) => void, RegExp]>([
    [
      "a request parameter's maximum lowered",
      (document) => {
        parameter(document, '/v1/pets', 'get', 'limit').schema.maximum = 50;
      },
      /^`GET \/v1\/pets` \(listPets\): query parameter `limit`: maximum changed from `100` to `50`$/,
    ],
    [
      'an enum value removed from a request',
      (document) => {
        schema(document, 'NewPet').properties.status.enum = ['available', 'pending'];
      },
      /^`POST \/v1\/pets` \(createPet\): request body: field `status`: enum value `"sold"` removed$/,
    ],
    [
      'a required request field added',
      (document) => {
        const newPet = schema(document, 'NewPet');
        newPet.properties.ownerId = { type: 'integer', minimum: 1 };
        newPet.required.push('ownerId');
      },
      /^`POST \/v1\/pets` \(createPet\): request body: field `ownerId` made required$/,
    ],
    [
      'a query parameter renamed',
      (document) => {
        parameter(document, '/v1/pets', 'get', 'cursor').name = 'after';
      },
      /^`GET \/v1\/pets` \(listPets\): query parameter `cursor` removed$/,
    ],
    [
      'a response field removed',
      (document) => {
        const pet = schema(document, 'Pet');
        delete pet.properties.name;
        pet.required = pet.required.filter((name: string) => name !== 'name');
      },
      /^`GET \/v1\/pets\/\{petId\}` \(getPet\): response 200: field `name` removed$/,
    ],
    [
      'an optional response field removed',
      (document) => {
        delete schema(document, 'Error').properties.details;
      },
      /^`POST \/v1\/pets` \(createPet\): response 400: field `details` removed$/,
    ],
    [
      'a declared status removed',
      (document) => {
        delete operation(document, '/v1/pets', 'post').responses['413'];
      },
      /^`POST \/v1\/pets` \(createPet\): response 413 removed$/,
    ],
    [
      'a declared error code removed',
      (document) => {
        delete errorExamples(document, 'InvalidPetBody').malformed_json;
      },
      /^`POST \/v1\/pets` \(createPet\): response 400: error code `malformed_json` removed$/,
    ],
    [
      'a response header removed',
      (document) => {
        delete operation(document, '/v1/pets', 'post').responses['201'].headers.Location;
      },
      /^`POST \/v1\/pets` \(createPet\): response 201: header `Location` removed$/,
    ],
    [
      'a response header made optional',
      (document) => {
        present(document.components.headers.Location, 'header Location').required = false;
      },
      /^`POST \/v1\/pets` \(createPet\): response 201: header `Location`: required changed from `true` to `false`$/,
    ],
    [
      'a new value in a closed response enum',
      (document) => {
        schema(document, 'Pet').properties.status.enum.push('reserved');
      },
      /^`GET \/v1\/pets` \(listPets\): response 200: field `\[\]\.status`: enum value `"reserved"` added$/,
    ],
    [
      'a field removed from a request body that refuses unknown fields',
      (document) => {
        delete schema(document, 'NewPet').properties.status;
      },
      /^`POST \/v1\/pets` \(createPet\): request body: field `status` removed$/,
    ],
    [
      'an operation removed',
      (document) => {
        delete document.paths['/v1/pets/{petId}'];
      },
      /^`GET \/v1\/pets\/\{petId\}` \(getPet\): operation removed$/,
    ],
  ])('%s', (_name, edit, expected) => {
    const breaking = lines(openApiChanges(RELEASED, edited(edit)), 'breaking');
    expect(breaking).toEqual(expect.arrayContaining([expect.stringMatching(expected)]));
  });
});

describe('the gate lets through', () => {
  it.each<[string, (document: Document) => void, ApiChange['impact'], RegExp]>([
    [
      'an optional request field added',
      (document) => {
        schema(document, 'NewPet').properties.nickname = { type: 'string', maxLength: 100 };
      },
      'non-breaking',
      /^`POST \/v1\/pets` \(createPet\): request body: field `nickname` added/,
    ],
    [
      'a new operation',
      (document) => {
        const { deprecated: _, ...getPet } = operation(document, '/v1/pets/{petId}', 'get');
        document.paths['/v1/pets/{petId}'].delete = { ...getPet, operationId: 'deletePet' };
      },
      'non-breaking',
      /^`DELETE \/v1\/pets\/\{petId\}` \(deletePet\): operation added$/,
    ],
    [
      'a description changed',
      (document) => {
        operation(document, '/v1/pets', 'get').description = 'Animals, a page at a time.';
      },
      'documentation',
      /^`GET \/v1\/pets` \(listPets\): description changed$/,
    ],
    [
      'a new error code for a status',
      (document) => {
        errorExamples(document, 'NotFound').gone = {
          summary: 'gone',
          value: { code: 'gone', message: 'This animal was sold.', status: 404 },
        };
        schema(document, 'Error').properties.code.enum.push('gone');
      },
      'non-breaking',
      /^`GET \/v1\/pets\/\{petId\}` \(getPet\): response 404: error code `gone` added$/,
    ],
    [
      'a response header made required',
      (document) => {
        const link = operation(document, '/v1/pets', 'get').responses['200'].headers.Link;
        present(link, 'header Link of listPets').required = true;
      },
      'non-breaking',
      /^`GET \/v1\/pets` \(listPets\): response 200: header `Link`: required added: `true`$/,
    ],
    [
      'a new value in a request enum',
      (document) => {
        schema(document, 'NewPet').properties.status.enum.push('reserved');
      },
      'non-breaking',
      /^`POST \/v1\/pets` \(createPet\): request body: field `status`: enum value `"reserved"` added$/,
    ],
  ])('%s', (_name, edit, impact, expected) => {
    const changes = openApiChanges(RELEASED, edited(edit));
    expect(lines(changes, 'breaking')).toEqual([]);
    expect(lines(changes, impact)).toEqual(
      expect.arrayContaining([expect.stringMatching(expected)]),
    );
  });

  it('nothing when nothing changed', () => {
    expect(openApiChanges(RELEASED, structuredClone(RELEASED))).toEqual([]);
  });
});
