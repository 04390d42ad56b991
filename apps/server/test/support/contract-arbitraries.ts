/**
 * fast-check arbitraries read from the contract's zod schemas (through zod-fast-check), and the
 * hostile values around them: names, numbers and JSON the schemas refuse.
 */
import { MAX_INTEGER_ID, type NewPet, NewPetSchema } from '@animal-store/contract';
import fc from 'fast-check';
import { ZodFastCheck } from 'zod-fast-check';
import { type JsonStyle, RawJson } from './json-text.js';

const nameSchema = NewPetSchema.shape.name;
export const isValidPetName = (value: unknown) => nameSchema.safeParse(value).success;

/** Unicode's White_Space characters, the ones a name may not consist of only. */
export const WHITE_SPACE = [
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  ' ',
  '\u0085',
  '\u00a0',
  '\u1680',
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
];

const whiteSpaceRun = (minLength: number, maxLength: number) =>
  fc.array(fc.constantFrom(...WHITE_SPACE), { minLength, maxLength }).map((run) => run.join(''));

/** Names at the rules' edges that are still names: stored and returned exactly as sent. */
const NAME_EDGES = [
  ' Rex ',
  '\u0000',
  'a\u0000b',
  '\\',
  '\\0',
  'a\\\\0\u0000\\',
  '🐶'.repeat(100),
  'é'.repeat(100),
  'e\u0301',
  '\u200b',
  '\ufeff',
  '\u0085x\u0085',
  'x'.repeat(100),
  '\u202eevil',
  'null',
  '__proto__',
  "'; DROP TABLE pets; --",
  '%00',
  '\r\n\tx',
  '𝕏'.repeat(100),
  '\u0000'.repeat(100),
  '\\'.repeat(100),
];

/** Any name the contract accepts, weighted towards the ones a storage layer gets wrong. */
export const validPetName: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom(...NAME_EDGES),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 100 }),
    fc.string({ minLength: 1, maxLength: 100 }),
    fc
      .tuple(whiteSpaceRun(0, 3), fc.string({ minLength: 1, maxLength: 10 }), whiteSpaceRun(0, 3))
      .map((parts) => parts.join('')),
  )
  .filter(isValidPetName);

/** Strings the contract refuses as a name: empty, only white space, too long, lone surrogates. */
export const invalidPetName: fc.Arbitrary<string> = fc
  .oneof(
    fc.constant(''),
    whiteSpaceRun(1, 6),
    fc.string({ minLength: 101, maxLength: 130 }),
    fc.constantFrom('🐶'.repeat(101), 'é'.repeat(101), `${'x'.repeat(100)}\u0085`),
    fc
      .tuple(fc.string({ maxLength: 5 }), fc.constantFrom('\ud800', '\udfff', '\udc00'))
      .map(([text, surrogate]) => `${text}${surrogate}`),
  )
  .filter((name) => !isValidPetName(name));

/** A NewPet as a caller writes it, `status` sometimes left out: derived from NewPetSchema. */
export const newPet: fc.Arbitrary<NewPet> = ZodFastCheck()
  .override(nameSchema, validPetName)
  .inputOf(NewPetSchema)
  .map(({ status, ...pet }) => (status === undefined ? pet : { ...pet, status }))
  .filter((pet) => NewPetSchema.safeParse(pet).success);

const safeInteger = fc.integer({ min: 1, max: MAX_INTEGER_ID });

/**
 * JSON text for `categoryId`: whole numbers spelled every way JSON allows, and zero, negatives,
 * fractions, exponents, huge and overflowing numbers, text that is not a JSON number, and JSON
 * values that are not numbers at all.
 */
export const categoryIdText: fc.Arbitrary<string> = fc.oneof(
  safeInteger.map(String),
  fc
    .tuple(safeInteger, fc.constantFrom('.0', '.000', 'e0', 'E+0', '.0e0', 'e-0'))
    .map(([n, suffix]) => `${n}${suffix}`),
  safeInteger.map((n) => `${n}0e-1`),
  fc.constantFrom(
    '0',
    '-0',
    '-0.0',
    '0e5',
    '-1',
    '1e400',
    '-1e400',
    '1e-400',
    '1E308',
    '9007199254740991',
    '9007199254740992',
    '9007199254740993',
    '9007199254740991.0000001',
    '1.5',
    '0.5',
    '1.0000000000000002',
    '2147483648',
    '4294967296',
    '18446744073709551616',
    '123456789012345678901234567890',
  ),
  fc.constantFrom('01', '+1', '.5', '1.', '0x10', 'NaN', 'Infinity', '-', '1e', '--1', '1_0', '١'),
  fc.constantFrom('"1"', 'true', 'null', '[1]', '{}', '""', '{"value":1}'),
  fc.integer({ min: -MAX_INTEGER_ID, max: 0 }).map(String),
  fc.tuple(safeInteger, fc.integer({ min: 1, max: 999 })).map(([n, f]) => `${n}.${f}`),
  fc.integer({ min: 0, max: 400 }).map((k) => `1e${k}`),
  fc.integer({ min: 1, max: 400 }).map((k) => `1e-${k}`),
  fc.stringMatching(/^-?[1-9][0-9]{15,400}$/),
  fc.double({ noNaN: true }).map((d) => JSON.stringify(d)),
);

/** How a JSON text is written: escapes, white space, key order; the value stays the same. */
export const jsonStyle: fc.Arbitrary<JsonStyle> = fc.record({
  escape: fc.constantFrom('needed', 'nonAscii', 'all'),
  escapeSlash: fc.boolean(),
  space: fc.constantFrom('', ' ', '\n', '\t \r\n'),
  reverseKeys: fc.boolean(),
});

/** Object keys that mean something to JavaScript, and other names that are not NewPet fields. */
export const unknownFieldName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '__defineGetter__',
    'id',
    'Name',
    'name ',
    'categoryid',
    'STATUS',
    'status\u0000',
    '',
    'body',
    'a.b',
  ),
  fc.string({ maxLength: 12 }),
);

/** Any JSON value, small: what a hostile client puts where a field belongs. */
export const anyJsonValue: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });

/** JSON text nested `depth` levels deep around `inner`, by arrays or by objects. */
export function nested(kind: 'array' | 'object', depth: number, inner = '1'): RawJson {
  return kind === 'array'
    ? new RawJson(`${'['.repeat(depth)}${inner}${']'.repeat(depth)}`)
    : new RawJson(`${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`);
}
