/**
 * createPet against hostile clients, property by property: bodies derived from the contract's
 * NewPet schema and bodies built to break it (random bytes, foreign encodings and charsets,
 * numbers of every spelling, JSON nested thousands deep, repeated and prototype keys), odd
 * Idempotency-Key and Content-Length headers. Every answer keeps the rules (no 5xx; errors are
 * Error bodies with a code from the table), each is the one the interface names for its request,
 * a refused request stores nothing, and at the end every acknowledged pet is listed unchanged.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { GET_PET_DEPRECATION_HEADERS, type Pet } from '@animal-store/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AcknowledgedPets,
  expectListedUnchanged,
  STRICT_PET,
} from './support/acknowledged-pets.js';
import {
  type CreateBody,
  type ExpectedCreate,
  expectedCreate,
  MAX_BODY_BYTES,
} from './support/body-rules.js';
import {
  anyJsonValue,
  categoryIdText,
  invalidPetName,
  jsonStyle,
  nested,
  newPet,
  unknownFieldName,
  validPetName,
} from './support/contract-arbitraries.js';
import {
  canonicalJson,
  JsonEntries,
  jsonText,
  objectOf,
  PLAIN,
  RawJson,
} from './support/json-text.js';
import { bytesOf, exchangeRaw, refusedInHeaderValue } from './support/raw-http.js';
import {
  type Answer,
  answerOf,
  expectWithinRules,
  fromRaw,
  propertyRuns,
} from './support/response-rules.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let api: TestServer;
const acknowledged = new AcknowledgedPets();

beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

const storedPets = () => api.db.pet.count();

// --- What a create is sent as ---------------------------------------------------------------

/** Declared JSON: `application/json`, in any case, with UTF-8 (by either name) or no charset, other parameters aside. */
const JSON_TYPES = [
  'application/json',
  'Application/JSON',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'application/json; charset="utf-8"',
  'application/json; charset=utf8',
  'application/json; charset="UTF8"; version=1',
  'application/json; version=1',
];
/** JSON in a charset that is not UTF-8: 415. */
const OTHER_CHARSETS = [
  'application/json; charset=utf-16',
  'application/json; charset=UTF-16LE',
  'application/json; charset=latin1',
  'application/json; charset=iso-8859-1',
  'application/json; charset=us-ascii',
  'application/json; charset="utf-32"',
];
/** Not `application/json` at all: 415 for a non-empty body. */
const NOT_JSON = [
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/vnd.api+json',
  'application/json-patch+json',
  'application/jsonx',
  '*/*',
  'application/*',
];

const anyContentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...JSON_TYPES) },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER_CHARSETS) },
  { weight: 1, arbitrary: fc.constantFrom(...NOT_JSON) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

interface BodyEncoding {
  header?: string;
  encode: (bytes: Buffer) => Buffer;
}
const asIs = (bytes: Buffer) => bytes;
/** Content-Encodings the service decodes, each applied to the bytes. */
const DECODABLE: Record<string, BodyEncoding> = {
  none: { encode: asIs },
  identity: { header: 'identity', encode: asIs },
  gzip: { header: 'gzip', encode: (bytes) => gzipSync(bytes) },
  deflate: { header: 'deflate', encode: (bytes) => deflateSync(bytes) },
  GZIP: { header: 'GZIP', encode: (bytes) => gzipSync(bytes) },
};
/** Encodings claimed but not applied, or not supported. */
const HOSTILE_ENCODINGS: Record<string, BodyEncoding> = {
  'gzip, not applied': { header: 'gzip', encode: asIs },
  'deflate, not applied': { header: 'deflate', encode: asIs },
  br: { header: 'br', encode: asIs },
  compress: { header: 'compress', encode: asIs },
  'gzip, identity': { header: 'gzip, identity', encode: (bytes) => gzipSync(bytes) },
};
const decodableEncoding = fc.constantFrom(...Object.values(DECODABLE));
const anyEncoding = fc.oneof(
  { weight: 3, arbitrary: decodableEncoding },
  { weight: 1, arbitrary: fc.constantFrom(...Object.values(HOSTILE_ENCODINGS)) },
);

function createBody(
  bytes: Buffer,
  contentType: string | undefined,
  encoding: BodyEncoding = DECODABLE.none as BodyEncoding,
): CreateBody {
  return {
    bytes: encoding.encode(bytes),
    contentType,
    contentEncoding: encoding.header,
  };
}

const jsonBody = (value: unknown, style = PLAIN, encoding?: BodyEncoding) =>
  createBody(Buffer.from(jsonText(value, style)), 'application/json', encoding);

// --- Sending and judging ----------------------------------------------------------------------

interface Outcome {
  answer: Answer;
  created?: Pet;
}

/**
 * Records what a create's answers acknowledged and checks the rules of each. Whatever the
 * answers, the store grew by exactly the pets they acknowledged as new.
 */
async function judged(answers: Answer[], storedBefore: number): Promise<Outcome[]> {
  const outcomes = answers.map((answer) => {
    const created = answer.status === 201 ? STRICT_PET.parse(JSON.parse(answer.body)) : undefined;
    const replayed = answer.headers['idempotent-replayed'] === 'true';
    if (created) acknowledged.acknowledge(created, { replayed });
    return { answer, created, replayed };
  });
  for (const { answer, created } of outcomes) {
    expectWithinRules(answer, ['/v1/pets']);
    if (created) expect(answer.headers.location).toBe(`/v1/pets/${created.id}`);
  }
  const acknowledgedNew = outcomes.filter(({ created, replayed }) => created && !replayed).length;
  expect((await storedPets()) - storedBefore, 'pets stored by this request').toBe(acknowledgedNew);
  return outcomes;
}

/** Sends a create through `fetch` with a valid key. */
async function create(body: CreateBody): Promise<Outcome> {
  const before = await storedPets();
  const res = await api.request('/v1/pets', {
    method: 'POST',
    body: body.bytes,
    headers: {
      ...(body.contentType === undefined ? {} : { 'content-type': body.contentType }),
      ...(body.contentEncoding === undefined ? {} : { 'content-encoding': body.contentEncoding }),
    },
  });
  const [outcome] = await judged([await answerOf(res)], before);
  return outcome as Outcome;
}

/** The answer is the one `expected` names: the pet as read, or the error code and its fields. */
function expectAnswered({ answer, created }: Outcome, expected: ExpectedCreate) {
  if (expected.status === 201 && 'pet' in expected) {
    expect(answer.status, answer.body).toBe(201);
    expect(created).toEqual({ id: created?.id, ...expected.pet });
    return;
  }
  const body = JSON.parse(answer.body);
  expect({ status: answer.status, code: body.code }, answer.body).toEqual({
    status: expected.status,
    code: 'code' in expected ? expected.code : undefined,
  });
  if ('fields' in expected && expected.fields !== undefined) {
    const fields = (body.details ?? []).map((detail: { path: string }) => detail.path).sort();
    expect(fields, answer.body).toEqual(expected.fields);
  }
}

/** A raw HTTP/1.1 request with a valid key; `headers` are written exactly, in order. */
function rawRequest(head: string, headers: ReadonlyArray<readonly [string, string]>, body: Buffer) {
  const lines = [head, 'Host: localhost', `Authorization: Bearer ${api.apiKey}`];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  return Buffer.concat([bytesOf(`${lines.join('\r\n')}\r\n\r\n`), body]);
}

// --- The properties -------------------------------------------------------------------------

describe('createPet under hostile bodies and headers (property-based)', () => {
  it('every NewPet the contract accepts is created (201), stored exactly as sent and got back unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(
        newPet,
        jsonStyle,
        fc.constantFrom(...JSON_TYPES),
        decodableEncoding,
        async (pet, style, contentType, encoding) => {
          const body = createBody(Buffer.from(jsonText(pet, style)), contentType, encoding);
          const expected = expectedCreate(body);
          expect(expected).toEqual({
            status: 201,
            pet: { status: 'available', ...pet },
            json: pet,
          });
          const outcome = await create(body);
          expectAnswered(outcome, expected);

          const got = await answerOf(await api.request(`/v1/pets/${outcome.created?.id}`));
          expectWithinRules(got);
          expect(got.status).toBe(200);
          expect(JSON.parse(got.body)).toEqual(outcome.created);
          expect(got.headers.deprecation).toBe(GET_PET_DEPRECATION_HEADERS.Deprecation);
        },
      ),
      propertyRuns(100),
    );
  });

  it('any bytes under any Content-Type and Content-Encoding are answered as the body rules say: 415, 413 or 400 malformed_json as the table names them, storing nothing, or, for UTF-8 JSON declared so, read exactly', async () => {
    const INVALID_UTF8 = [
      [0xc3, 0x28],
      [0xed, 0xa0, 0x80], // an encoded surrogate (CESU-8)
      [0xc0, 0xaf], // an overlong "/"
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xff],
      [0x80],
      [0xe2, 0x82],
    ].map((bytes) => Buffer.from(bytes));
    const text = (pet: object) => jsonText(pet);
    const payload: fc.Arbitrary<Buffer> = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
      fc
        .tuple(fc.integer({ min: MAX_BODY_BYTES - 8, max: MAX_BODY_BYTES + 8 }), newPet)
        .map(([size, pet]) => {
          const start = `${text(pet).slice(0, -1)},"pad":"`;
          return Buffer.from(`${start}${'x'.repeat(Math.max(0, size - start.length - 2))}"}`);
        }),
      fc.tuple(newPet, fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([pet, invalid, at]) => {
        const bytes = Buffer.from(text(pet));
        const cut = at % bytes.length;
        return Buffer.concat([bytes.subarray(0, cut), invalid, bytes.subarray(cut)]);
      }),
      fc
        .tuple(newPet, fc.constantFrom('utf16le', 'utf16be', 'utf16le+bom', 'latin1', 'utf8+bom'))
        .map(([pet, charset]) => {
          const json = text(pet);
          if (charset === 'latin1') return Buffer.from(json, 'latin1');
          if (charset === 'utf8+bom') return Buffer.from(`\ufeff${json}`);
          const utf16 = Buffer.from(charset === 'utf16le+bom' ? `\ufeff${json}` : json, 'utf16le');
          return charset === 'utf16be' ? utf16.swap16() : utf16;
        }),
      fc
        .tuple(newPet, fc.constantFrom('x', '}', ',', '\u0000', ' \n', '{}', '\ufeff'))
        .map(([pet, tail]) => Buffer.from(`${text(pet)}${tail}`)),
      fc.tuple(newPet, fc.nat()).map(([pet, at]) => {
        const json = text(pet);
        return Buffer.from(json.slice(0, at % json.length));
      }),
      fc.constantFrom(
        ...['', '\ufeff', ' ', '\t\n', 'null', '[]', '""'].map((t) => Buffer.from(t)),
      ),
    );
    await fc.assert(
      fc.asyncProperty(payload, anyContentType, anyEncoding, async (bytes, type, encoding) => {
        const body = createBody(bytes, type, encoding);
        expectAnswered(await create(body), expectedCreate(body));
      }),
      propertyRuns(200),
    );
  });

  it('a JSON value that is not a NewPet is 400 validation_failed with one details entry per invalid field, prototype keys included, and stores nothing', async () => {
    const replaced = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
    const notANewPet = fc
      .oneof(
        fc
          .tuple(
            newPet,
            fc.array(fc.tuple(unknownFieldName, anyJsonValue), { minLength: 1, maxLength: 3 }),
          )
          .map(([pet, extra]) => objectOf([...Object.entries(pet), ...extra])),
        fc
          .tuple(
            newPet,
            replaced(fc.oneof(invalidPetName, anyJsonValue)),
            replaced(anyJsonValue),
            replaced(
              fc.oneof(
                fc.constantFrom('Available', 'SOLD', 'available ', '', 'adopted', null),
                anyJsonValue,
              ),
            ),
          )
          .map(([pet, name, categoryId, status]) =>
            objectOf(
              Object.entries({ ...pet, name, categoryId, status })
                .map(([key, value]) => [
                  key,
                  value === undefined ? (pet as Record<string, unknown>)[key] : value,
                ])
                .filter(([, value]) => value !== undefined) as Array<[string, unknown]>,
            ),
          ),
        fc
          .tuple(newPet, fc.subarray(['name', 'categoryId', 'status'], { minLength: 1 }))
          .map(([pet, dropped]) =>
            objectOf(Object.entries(pet).filter(([key]) => !dropped.includes(key))),
          ),
        anyJsonValue,
        fc.constantFrom(
          objectOf([['__proto__', { name: 'Rex', categoryId: 1 }]]),
          objectOf([
            ['name', 'Rex'],
            ['categoryId', 1],
            ['__proto__', { isAdmin: true }],
          ]),
          objectOf([
            ['name', 'Rex'],
            ['categoryId', 1],
            ['constructor', { prototype: { polluted: true } }],
          ]),
          objectOf([
            ['name', { toString: 'Rex' }],
            ['categoryId', { valueOf: 1 }],
          ]),
        ),
      )
      .filter((value) => expectedCreate(jsonBody(value)).status !== 201);
    await fc.assert(
      fc.asyncProperty(notANewPet, jsonStyle, async (value, style) => {
        const body = jsonBody(value, style);
        const expected = expectedCreate(body);
        expect(expected).toMatchObject({ status: 400, code: 'validation_failed' });
        expectAnswered(await create(body), expected);
        // The server runs in this process: a polluted prototype would show here.
        expect(Object.prototype).not.toHaveProperty('polluted');
        expect(Object.prototype).not.toHaveProperty('isAdmin');
      }),
      propertyRuns(200),
    );
  });

  it('categoryId is accepted only as a JSON number whose value is a whole number from 1 to 2^53 − 1, however it is written; anything else is refused and stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(newPet, categoryIdText, jsonStyle, async (pet, number, style) => {
        const value = objectOf(
          Object.entries(pet).map(([key, item]) => [
            key,
            key === 'categoryId' ? new RawJson(number) : item,
          ]),
        );
        const body = jsonBody(value, style);
        const expected = expectedCreate(body);
        let read: unknown;
        try {
          read = JSON.parse(number);
        } catch {
          read = undefined;
        }
        const whole = Number.isSafeInteger(read) && (read as number) >= 1;
        expect(expected.status).toBe(whole ? 201 : 400);
        expectAnswered(await create(body), expected);
      }),
      propertyRuns(200),
    );
  });

  it('JSON nested thousands of levels deep is refused (400 validation_failed, or 413 past 16 KiB once decoded), never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        newPet,
        fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>,
        fc.integer({ min: 1_000, max: 9_000 }),
        fc.constantFrom('body', 'name', 'categoryId', 'status', 'extra'),
        fc.constantFrom(DECODABLE.none as BodyEncoding, DECODABLE.gzip as BodyEncoding),
        async (pet, kind, depth, where, encoding) => {
          const deep = nested(kind, depth);
          const value =
            where === 'body'
              ? deep
              : objectOf([...Object.entries(pet), [where === 'extra' ? 'x' : where, deep]]);
          const body = jsonBody(value, PLAIN, encoding);
          const expected = expectedCreate(body);
          expect([400, 413]).toContain(expected.status);
          expectAnswered(await create(body), expected);
        },
      ),
      propertyRuns(40),
    );
  });

  it('a key given twice counts once, with its last value, as JSON.parse reads it (the interface is silent on repeated keys)', async () => {
    const repeated = fc.oneof(
      validPetName.map((name) => ['name', name] as const),
      invalidPetName.map((name) => ['name', name] as const),
      fc.integer({ min: -5, max: 2 ** 53 }).map((id) => ['categoryId', id] as const),
      fc.constantFrom('available', 'pending', 'sold', 'lost').map((s) => ['status', s] as const),
      fc.tuple(unknownFieldName, anyJsonValue),
    );
    await fc.assert(
      fc.asyncProperty(
        newPet,
        fc.array(repeated, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        jsonStyle,
        async (pet, extra, at, style) => {
          const entries: Array<readonly [string, unknown]> = Object.entries(pet);
          entries.splice(at % (entries.length + 1), 0, ...extra);
          const body = jsonBody(new JsonEntries(entries), style);
          const expected = expectedCreate(body);
          // The value each key has last in the text as written.
          const last = new Map(style.reverseKeys ? [...entries].reverse() : entries);
          if (expected.status === 201 && 'pet' in expected) {
            expect(expected.pet.name).toBe(last.get('name'));
            expect(expected.pet.categoryId).toBe(last.get('categoryId'));
          }
          expectAnswered(await create(body), expected);
        },
      ),
      propertyRuns(80),
    );
  });

  it('Idempotency-Key: 1 to 255 visible ASCII replays the first create for the same JSON value and is 409 for another; any other value is 400, and refused requests store nothing under the key', async () => {
    const remembered = new Map<string, { value: string; pet: Pet }>();
    let run = 0;
    const step = fc.record({
      key: fc.oneof(
        { weight: 4, arbitrary: fc.record({ slot: fc.nat(2), long: fc.boolean() }) },
        {
          weight: 2,
          arbitrary: fc.oneof(
            fc.constantFrom('', 'a b', 'a\tb', 'x'.repeat(256), '\u00e9', 'ключ', '\x7f', '\x01a'),
            // Any characters but CR and LF, which would end the header line.
            fc
              .string({ unit: 'binary', minLength: 1, maxLength: 8 })
              .filter((k) => !/[\r\n]/.test(k)),
          ),
        },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      padding: fc.constantFrom('', ' ', '\t', ' \t '),
      twice: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, fc.constant(true)),
      body: fc.nat(3),
      style: jsonStyle,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(newPet, newPet),
        fc.array(step, { minLength: 1, maxLength: 6 }),
        async ([first, second], steps) => {
          run += 1;
          // Two pets; the first with `status` written out (the same JSON value if it had one, another
          // if it was left out); and a body the contract refuses. Each is written in a random style,
          // so the same value comes as different text.
          const values: unknown[] = [
            first,
            second,
            { ...first, status: first.status ?? 'available' },
            { ...first, colour: 'red' },
          ];
          for (const { key, padding, twice, body: which, style } of steps) {
            const value = values[which];
            const body = jsonBody(value, style);
            const headerKey =
              key === undefined || typeof key === 'string'
                ? key
                : `${run}.${key.slot}.`.padEnd(key.long ? 255 : 12, '~');
            const headers: Array<[string, string]> = [
              ['Content-Type', 'application/json'],
              ['Content-Length', String(body.bytes.length)],
              ['Connection', 'close'],
            ];
            const wire =
              headerKey === undefined
                ? undefined
                : Buffer.from(`${padding}${headerKey}${padding}`).toString('latin1');
            if (wire !== undefined) {
              headers.push(['Idempotency-Key', wire]);
              if (twice) headers.push(['Idempotency-Key', wire]);
            }
            const before = await storedPets();
            const answers = (
              await exchangeRaw(
                api.port,
                rawRequest('POST /v1/pets HTTP/1.1', headers, Buffer.from(body.bytes)),
              )
            ).map(fromRaw);
            expect(answers).toHaveLength(1);
            const [outcome] = (await judged(answers, before)) as [Outcome];

            const bodyExpected = expectedCreate(body);
            const trimmed = wire?.replace(/^[ \t]+|[ \t]+$/g, '');
            if (wire !== undefined && refusedInHeaderValue(wire)) {
              expectAnswered(outcome, { status: 400, code: 'malformed_request' });
              continue;
            }
            const keyValid =
              trimmed === undefined || (!twice && /^[\x21-\x7e]{1,255}$/.test(trimmed));
            if (!keyValid || bodyExpected.status !== 201) {
              const fields = [
                ...(keyValid ? [] : ['idempotency-key']),
                ...(bodyExpected.status === 201
                  ? []
                  : ('fields' in bodyExpected && bodyExpected.fields) || []),
              ].sort();
              expectAnswered(outcome, { status: 400, code: 'validation_failed', fields });
              continue;
            }
            const earlier = trimmed === undefined ? undefined : remembered.get(trimmed);
            const sameValue = canonicalJson(value);
            if (earlier === undefined) {
              expectAnswered(outcome, bodyExpected);
              expect(outcome.answer.headers['idempotent-replayed']).toBeUndefined();
              if (trimmed !== undefined && outcome.created)
                remembered.set(trimmed, { value: sameValue, pet: outcome.created });
            } else if (earlier.value === sameValue) {
              expect(outcome.answer.status).toBe(201);
              expect(outcome.answer.headers['idempotent-replayed']).toBe('true');
              expect(outcome.created).toEqual(earlier.pet);
            } else {
              expectAnswered(outcome, { status: 409, code: 'idempotency_key_reused' });
            }
          }
        },
      ),
      propertyRuns(50),
    );
  });

  it('a Content-Length that disagrees with the body: never a 5xx, every answer an Error body or the pet the declared bytes carry, and nothing stored beyond it', async () => {
    const declared = fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: -40, max: 40 }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '-1',
          'abc',
          '1e2',
          '0x10',
          '+5',
          '5, 5',
          '',
          '99999999999999999999',
          '20000',
          'chunked',
        ),
      },
    );
    await fc.assert(
      fc.asyncProperty(
        newPet,
        declared,
        fc.constantFrom(
          '',
          'junk',
          ' ',
          '{"name":"Smuggled","categoryId":1}',
          'GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n',
        ),
        fc.boolean(),
        async (pet, length, trailing, withChunked) => {
          const json = Buffer.from(jsonText(pet));
          const sent = Buffer.concat([json, Buffer.from(trailing)]);
          const lengthHeader =
            typeof length === 'number' ? String(Math.max(0, json.length + length)) : length;
          const headers: Array<[string, string]> = [
            ['Content-Type', 'application/json'],
            ['Content-Length', lengthHeader],
            ['Connection', 'close'],
          ];
          if (withChunked) headers.push(['Transfer-Encoding', 'chunked']);
          const declaredBytes = Number(lengthHeader);
          const before = await storedPets();
          const request = rawRequest('POST /v1/pets HTTP/1.1', headers, sent);
          // A body that never comes in full ends only when the client ends its side.
          const endInput = typeof length === 'string' || declaredBytes > sent.length;
          const answers = (await exchangeRaw(api.port, request, { endInput })).map(fromRaw);
          const outcomes = await judged(answers, before);
          if (withChunked) {
            // Content-Length beside Transfer-Encoding is a framing the HTTP parser refuses.
            expect(answers.map(({ status }) => status)).toEqual([400]);
            expect(JSON.parse(answers[0]?.body ?? '').code).toBe('malformed_request');
          } else if (typeof length === 'number' && declaredBytes <= sent.length) {
            // The declared bytes are the body; whatever follows is the next request.
            expect(outcomes.length).toBeGreaterThanOrEqual(1);
            const body = createBody(sent.subarray(0, declaredBytes), 'application/json');
            expectAnswered(outcomes[0] as Outcome, expectedCreate(body));
          } else if (typeof length === 'number') {
            // The body never arrives in full: nothing may be created from it.
            for (const { answer } of outcomes) expect(answer.status).not.toBe(201);
          }
        },
      ),
      propertyRuns(80),
    );
  });

  it('at the end, every acknowledged pet is listed unchanged, walking every page by its Link, and nothing else is stored', async () => {
    expect(acknowledged.size).toBeGreaterThan(0);
    await expectListedUnchanged(api, acknowledged);
  });
});
