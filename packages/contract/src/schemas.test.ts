/**
 * The schema rules of the interface (docs/interface.md: "Resources and fields", "Operations",
 * "Paging"), one test per rule. Query, path and header values are given as the HTTP layer hands
 * them over: text, or an array of texts when the parameter is repeated.
 */
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import {
  contract,
  ERROR_STATUS,
  type ErrorCode,
  ListPetsQuerySchema,
  NewPetSchema,
  PetSchema,
} from './index.js';

const accepts = (schema: z.ZodTypeAny, value: unknown) => schema.safeParse(value).success;

/** Where a refused value is wrong, e.g. `['name']` (sorted, once each); fails when it is accepted. */
function refusedAt(schema: z.ZodTypeAny, value: unknown): string[] {
  const result = schema.safeParse(value);
  expect(result.success, `expected ${JSON.stringify(value)} to be refused`).toBe(false);
  const paths = result.error?.issues.map((issue) => issue.path.join('.')) ?? [];
  return [...new Set(paths)].sort();
}

const newPet = (fields: Record<string, unknown>) => ({ name: 'Rex', categoryId: 1, ...fields });

describe('Fields', () => {
  describe('name', () => {
    test('is 1 to 100 Unicode code points, not UTF-16 units (100 emoji accepted, 101 refused)', () => {
      const dog = '🐕'; // one code point, two UTF-16 units
      expect(accepts(NewPetSchema, newPet({ name: dog.repeat(100) }))).toBe(true);
      expect(refusedAt(NewPetSchema, newPet({ name: dog.repeat(101) }))).toEqual(['name']);
      expect(accepts(NewPetSchema, newPet({ name: 'x'.repeat(100) }))).toBe(true);
      expect(refusedAt(NewPetSchema, newPet({ name: 'x'.repeat(101) }))).toEqual(['name']);
      expect(accepts(NewPetSchema, newPet({ name: 'R' }))).toBe(true);
      expect(refusedAt(NewPetSchema, newPet({ name: '' }))).toEqual(['name']);
    });

    test('is not only whitespace', () => {
      for (const name of [' ', '   ', '\t\n', '\u00a0', '\u3000', '\u2028']) {
        expect(refusedAt(NewPetSchema, newPet({ name }))).toEqual(['name']);
      }
      expect(accepts(NewPetSchema, newPet({ name: ' . ' }))).toBe(true);
    });

    test('is well-formed Unicode: a lone surrogate such as "\\ud800" is refused', () => {
      for (const name of ['\ud800', 'Rex\udc00', '\udc00\ud800']) {
        expect(refusedAt(NewPetSchema, newPet({ name }))).toEqual(['name']);
      }
      expect(accepts(NewPetSchema, newPet({ name: '\ud83d\udc15' }))).toBe(true); // a pair is fine
    });

    test('may hold any well-formed character, NUL and controls included', () => {
      for (const name of ['\u0000', 'Rex\u0000', 'a\u0000b', 'tab\there', '\\0']) {
        expect(accepts(NewPetSchema, newPet({ name }))).toBe(true);
      }
    });

    test('"only whitespace" means Unicode White_Space: NEL counts, a BOM does not', () => {
      expect(refusedAt(NewPetSchema, newPet({ name: '\u0085' }))).toEqual(['name']);
      expect(accepts(NewPetSchema, newPet({ name: '\ufeff' }))).toBe(true);
    });

    test('is a string', () => {
      for (const name of [42, null, ['Rex'], { first: 'Rex' }]) {
        expect(refusedAt(NewPetSchema, newPet({ name }))).toEqual(['name']);
      }
      expect(refusedAt(NewPetSchema, { categoryId: 1 })).toEqual(['name']);
    });

    test('is stored as sent: no trimming, no normalisation', () => {
      for (const name of ['  Rex  ', 'Rex\n', 'e\u0301', '\u00e9', 'ＲＥＸ']) {
        expect(NewPetSchema.parse(newPet({ name })).name).toBe(name);
        expect(PetSchema.parse({ id: 1, name, categoryId: 1, status: 'sold' }).name).toBe(name);
      }
    });
  });

  describe('categoryId', () => {
    test('is an integer from 1 to 9007199254740991 (2^53-1)', () => {
      for (const categoryId of [1, 2, 1000, 2 ** 53 - 1]) {
        expect(NewPetSchema.parse(newPet({ categoryId })).categoryId).toBe(categoryId);
      }
      expect(refusedAt(NewPetSchema, newPet({ categoryId: 2 ** 53 }))).toEqual(['categoryId']);
      expect(refusedAt(NewPetSchema, { name: 'Rex' })).toEqual(['categoryId']);
    });

    test('strings, fractions, zero and negatives are refused', () => {
      for (const categoryId of ['1', '', 1.5, 0.1, 0, -0, -1, -(2 ** 53 - 1)]) {
        expect(refusedAt(NewPetSchema, newPet({ categoryId }))).toEqual(['categoryId']);
      }
      for (const categoryId of [Number.NaN, Number.POSITIVE_INFINITY, null, true, [1]]) {
        expect(refusedAt(NewPetSchema, newPet({ categoryId }))).toEqual(['categoryId']);
      }
    });
  });

  describe('status', () => {
    test('is available, pending or sold', () => {
      for (const status of ['available', 'pending', 'sold'] as const) {
        expect(NewPetSchema.parse(newPet({ status })).status).toBe(status);
      }
      for (const status of ['Available', 'adopted', '', null, 1]) {
        expect(refusedAt(NewPetSchema, newPet({ status }))).toEqual(['status']);
      }
    });

    test('omitted on creation means available', () => {
      expect(NewPetSchema.parse({ name: 'Rex', categoryId: 1 })).toEqual({
        name: 'Rex',
        categoryId: 1,
        status: 'available',
      });
    });
  });

  describe('id', () => {
    test('is a positive integer within the id range', () => {
      const pet = { name: 'Rex', categoryId: 1, status: 'available' };
      expect(accepts(PetSchema, { ...pet, id: 1 })).toBe(true);
      expect(accepts(PetSchema, { ...pet, id: 2 ** 53 - 1 })).toBe(true);
      for (const id of [0, -1, 1.5, 2 ** 53, '1']) {
        expect(refusedAt(PetSchema, { ...pet, id })).toEqual(['id']);
      }
    });
  });

  describe('NewPet', () => {
    test('fields other than name, categoryId and status are refused', () => {
      for (const extra of [{ id: 1 }, { Name: 'Rex' }, { tags: [] }, { status: 'sold', x: null }]) {
        const result = NewPetSchema.safeParse(newPet(extra));
        expect(result.error?.issues.map((issue) => issue.code)).toEqual(['unrecognized_keys']);
      }
    });

    test('an empty body is refused', () => {
      expect(refusedAt(NewPetSchema, {})).toEqual(['categoryId', 'name']);
      for (const body of [undefined, null, '', [], 'Rex']) {
        expect(refusedAt(NewPetSchema, body)).toEqual(['']);
      }
    });
  });

  describe('Pet', () => {
    test('a Pet as returned has exactly id, name, categoryId, status', () => {
      const stored = { id: 3, name: 'Rex', categoryId: 1, status: 'pending', createdAt: 'x' };
      expect(Object.keys(PetSchema.parse(stored)).sort()).toEqual([
        'categoryId',
        'id',
        'name',
        'status',
      ]);
      for (const field of ['id', 'name', 'categoryId', 'status'] as const) {
        const { [field]: _missing, ...rest } = stored;
        expect(refusedAt(PetSchema, rest)).toEqual([field]);
      }
    });
  });
});

describe('listPets paging', () => {
  const query = (values: Record<string, unknown>) => ListPetsQuerySchema.safeParse(values);

  test('limit: integer 1..100, default 20', () => {
    expect(ListPetsQuerySchema.parse({})).toEqual({ limit: 20 });
    expect(ListPetsQuerySchema.parse({ limit: '1' }).limit).toBe(1);
    expect(ListPetsQuerySchema.parse({ limit: '100' }).limit).toBe(100);
    expect(ListPetsQuerySchema.parse({ limit: '20' }).limit).toBe(20);
    expect(ListPetsQuerySchema.parse({ limit: 7 }).limit).toBe(7); // a typed caller's number
  });

  test('limit: anything else (0, 101, abc, 1.5) is refused', () => {
    for (const limit of [
      '0',
      '101',
      'abc',
      '1.5',
      '',
      '-1',
      '1e1',
      '0x10',
      ' 5',
      '5 ',
      '+5',
      '05',
    ]) {
      expect(refusedAt(ListPetsQuerySchema, { limit })).toEqual(['limit']);
    }
    for (const limit of [0, 101, 1.5, Number.NaN]) {
      expect(refusedAt(ListPetsQuerySchema, { limit })).toEqual(['limit']);
    }
  });

  test('limit: a repeated limit is refused', () => {
    expect(refusedAt(ListPetsQuerySchema, { limit: ['10', '20'] })).toEqual(['limit']);
    expect(refusedAt(ListPetsQuerySchema, { limit: ['10', '10'] })).toEqual(['limit']);
  });

  test('status: one of the three values, else refused', () => {
    for (const status of ['available', 'pending', 'sold']) {
      expect(ListPetsQuerySchema.parse({ status })).toEqual({ limit: 20, status });
    }
    for (const status of ['', 'Sold', 'adopted', 'available,sold']) {
      expect(refusedAt(ListPetsQuerySchema, { status })).toEqual(['status']);
    }
  });

  test('status: a repeated status is refused', () => {
    expect(refusedAt(ListPetsQuerySchema, { status: ['sold', 'pending'] })).toEqual(['status']);
    expect(refusedAt(ListPetsQuerySchema, { status: ['sold', 'sold'] })).toEqual(['status']);
  });

  test('cursor: an opaque text passed on unchanged', () => {
    expect(ListPetsQuerySchema.parse({ cursor: 'MjA.x-y_z' }).cursor).toBe('MjA.x-y_z');
  });

  test('cursor: a repeated cursor is refused', () => {
    expect(refusedAt(ListPetsQuerySchema, { cursor: ['a', 'b'] })).toEqual(['cursor']);
  });

  test('unknown query parameters are ignored', () => {
    expect(query({ limit: '5', sort: 'name', page: ['1', '2'] })).toEqual({
      success: true,
      data: { limit: 5 },
    });
  });
});

describe('createPet', () => {
  const headers = contract.pets.createPet.headers;

  test('Idempotency-Key is optional: 1 to 255 visible ASCII characters', () => {
    expect(accepts(headers, {})).toBe(true);
    for (const key of ['a', 'x'.repeat(255), '0f3c-9a!~', '"quoted"']) {
      expect(accepts(headers, { 'idempotency-key': key })).toBe(true);
    }
  });

  test('Idempotency-Key: empty, too long, spaces, controls, non-ASCII or repeated is refused', () => {
    for (const key of ['', 'x'.repeat(256), 'a b', 'a\tb', 'clé', ['a', 'b']]) {
      expect(refusedAt(headers, { 'idempotency-key': key })).toEqual(['idempotency-key']);
    }
  });
});

describe('getPet', () => {
  const params = contract.pets.getPet.pathParams;

  test('petId: a positive integer within the id range', () => {
    expect(params.parse({ petId: '1' })).toEqual({ petId: 1 });
    expect(params.parse({ petId: '9007199254740991' })).toEqual({ petId: 2 ** 53 - 1 });
    expect(params.parse({ petId: 42 })).toEqual({ petId: 42 });
  });

  test('petId and limit given as text, as every path and query hands them over, build no issue', () => {
    // Zod tries a union's branches in order, and one that fails builds an issue (through the
    // error maps): for every request, when the number branch came first.
    let issuesBuilt = 0;
    const counting: z.ZodErrorMap = (_issue, context) => {
      issuesBuilt += 1;
      return { message: context.defaultError };
    };
    expect(params.safeParse({ petId: '7' }, { errorMap: counting }).success).toBe(true);
    expect(ListPetsQuerySchema.safeParse({ limit: '5' }, { errorMap: counting }).success).toBe(
      true,
    );
    expect(issuesBuilt).toBe(0);
  });

  test('petId: anything else is refused (the server answers 404)', () => {
    for (const petId of [
      '0',
      '-1',
      'abc',
      '1.5',
      '',
      '9007199254740992',
      '1e3',
      ' 1',
      '01',
      ['1', '2'],
    ]) {
      expect(refusedAt(params, { petId })).toEqual(['petId']);
    }
    expect(contract.pets.getPet.responses).toHaveProperty('404');
    // Its 400 is only for requests the server cannot read at all, never for a bad petId.
    expect(contract.pets.getPet.responses[400].shape.code.options).toEqual(['malformed_request']);
  });
});

describe('contract', () => {
  test('every operation declares the shared error responses and strict status codes', () => {
    for (const route of Object.values(contract.pets)) {
      expect(Object.keys(route.responses)).toEqual(
        expect.arrayContaining(['401', '429', '500', '503']),
      );
      expect(route.strictStatusCodes).toBe(true);
      expect(route.path.startsWith('/v1/')).toBe(true);
    }
  });

  test('every error response declares only codes that travel with its status', () => {
    for (const route of Object.values(contract.pets)) {
      for (const [status, schema] of Object.entries(route.responses)) {
        if (Number(status) < 400) continue;
        const codes: readonly ErrorCode[] = (schema as z.AnyZodObject).shape.code.options;
        expect(codes.length).toBeGreaterThan(0);
        for (const code of codes) expect(ERROR_STATUS[code]).toBe(Number(status));
      }
    }
  });
});
