/**
 * listPets and getPet against hostile clients, and all three operations against odd headers,
 * property by property: query strings with repeated, encoded, prototype-named and a thousand
 * unknown parameters, junk cursors and limits; petIds of every spelling and raw bytes;
 * Authorization variants and odd headers. Every answer keeps the rules (no 5xx; errors are Error
 * bodies with a code from the table), each is the one the interface names, and every acknowledged
 * pet stays listed unchanged.
 */
import {
  GET_PET_DEPRECATION_HEADERS,
  MAX_INTEGER_ID,
  PAGE_SIZE,
  PET_STATUSES,
  type PetStatus,
} from '@animal-store/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AcknowledgedPets,
  expectListedUnchanged,
  nextPageUrl,
  STRICT_PET,
} from './support/acknowledged-pets.js';
import { newPet } from './support/contract-arbitraries.js';
import { jsonText } from './support/json-text.js';
import { bytesOf, exchangeRaw, refusedInHeaderValue, refusedInTarget } from './support/raw-http.js';
import { type Answer, expectWithinRules, fromRaw, propertyRuns } from './support/response-rules.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let api: TestServer;
const acknowledged = new AcknowledgedPets();
/** Cursors the service issued, each with the id its page starts after. */
const issuedCursors = new Map<string, number>();

const CANONICAL_DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Learns the cursor a page's `Link: rel="next"` carries. */
function harvestCursor(link: string | undefined, pets: Array<{ id: number }>) {
  const next = nextPageUrl(link);
  if (next === undefined) return;
  const cursor = new URL(next).searchParams.get('cursor');
  const last = pets.at(-1);
  if (cursor !== null && last) issuedCursors.set(cursor, last.id);
}

beforeAll(async () => {
  // One load balancer in front: each refused caller below gets an address of its own, so IP rate
  // limits (60 a minute without a valid key) never decide an answer.
  api = await startTestServer({ trustProxy: 1 });
  for (const pet of fc.sample(newPet, 140)) {
    const res = await api.request('/v1/pets', { method: 'POST', json: pet });
    expect(res.status).toBe(201);
    acknowledged.acknowledge(STRICT_PET.parse(await res.json()));
  }
  for (const query of ['limit=7', 'limit=1', 'limit=30&status=sold', 'status=pending&limit=3']) {
    const res = await api.request(`/v1/pets?${query}`);
    harvestCursor(res.headers.get('link') ?? undefined, await res.json());
  }
});
afterAll(() => api.close());

let addresses = 0;
/** A client address no other request of this file has used. */
const freshAddress = () => {
  addresses += 1;
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
};

/** A raw request, written byte for byte; `headers` as latin1 text, Host and Connection: close added. */
function rawRequest(
  method: string,
  target: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body = '',
) {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: localhost', 'Connection: close'];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  return Buffer.concat([bytesOf(`${lines.join('\r\n')}\r\n\r\n`), Buffer.from(body)]);
}

async function exchange(request: Buffer): Promise<Answer> {
  const answers = (await exchangeRaw(api.port, request)).map(fromRaw);
  expect(answers).toHaveLength(1);
  return answers[0] as Answer;
}

const keyHeader = (): [string, string] => ['Authorization', `Bearer ${api.apiKey}`];

function expectError(answer: Answer, status: number, code: string, fields?: string[]) {
  const body = JSON.parse(answer.body);
  expect({ status: answer.status, code: body.code }, answer.body).toEqual({ status, code });
  if (fields !== undefined) {
    const paths = (body.details ?? []).map((detail: { path: string }) => detail.path).sort();
    expect(paths, answer.body).toEqual([...fields].sort());
  }
}

// --- listPets ---------------------------------------------------------------------------------

interface ListFilter {
  limit: number;
  status?: PetStatus;
  afterId?: number;
}

/** What listPets must answer for this query string: the page it names, or the invalid fields. */
function expectedList(query: string): { filter: ListFilter } | { fields: string[] } {
  const params = new URLSearchParams(query);
  const fields: string[] = [];
  const limits = params.getAll('limit');
  const statuses = params.getAll('status');
  const cursors = params.getAll('cursor');
  const [limit = String(PAGE_SIZE.default)] = limits;
  const [status] = statuses;
  const [cursor] = cursors;
  const limitValue = Number(limit);
  if (
    limits.length > 1 ||
    !CANONICAL_DECIMAL.test(limit) ||
    limitValue < PAGE_SIZE.min ||
    limitValue > PAGE_SIZE.max
  )
    fields.push('limit');
  if (
    statuses.length > 1 ||
    (status !== undefined && !(PET_STATUSES as readonly string[]).includes(status))
  )
    fields.push('status');
  // One cursor the server did not issue is named beside any other invalid field.
  if (cursors.length > 1 || (cursor !== undefined && !issuedCursors.has(cursor))) {
    fields.push('cursor');
  }
  if (fields.length > 0) return { fields };
  return {
    filter: {
      limit: limitValue,
      status: status as PetStatus | undefined,
      afterId: cursor === undefined ? undefined : issuedCursors.get(cursor),
    },
  };
}

/** Characters a request target may carry as they are (no space, `#` or controls). */
const targetText = (maxLength: number) =>
  fc.stringMatching(new RegExp(`^[A-Za-z0-9._~!$'()*+,;:@/?%=&\\[\\]-]{0,${maxLength}}$`));
const percentEncoded = fc
  .uint8Array({ minLength: 1, maxLength: 4 })
  .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));

describe('listPets and getPet under hostile requests (property-based)', () => {
  it('listPets answers the page a query names when limit, status and cursor are each given at most once and valid, and 400 validation_failed naming them otherwise; unknown parameters are ignored, however many', async () => {
    const cursor = fc.oneof(
      fc.constantFrom(...issuedCursors.keys()),
      fc
        .tuple(
          fc.constantFrom(...issuedCursors.keys()),
          fc.nat(),
          fc.constantFrom('flip', 'append', 'drop', 'shift'),
        )
        .map(([text, at, how]) => {
          const i = at % text.length;
          if (how === 'append') return `${text}A`;
          if (how === 'drop') return text.slice(0, -1);
          if (how === 'shift') return text.replace(/^\d+/, (id) => String(Number(id) + 1));
          const char = text[i] === 'A' ? 'B' : 'A';
          return `${text.slice(0, i)}${char}${text.slice(i + 1)}`;
        }),
      targetText(30),
    );
    const limit = fc.oneof(
      fc.integer({ min: 1, max: 100 }).map(String),
      fc.integer({ min: -5, max: 205 }).map(String),
      fc.constantFrom(
        '0',
        '101',
        'abc',
        '1.5',
        '-1',
        '1e1',
        '05',
        '%205',
        '+5',
        '5+',
        '%35',
        '1%30',
        '%00',
        '5%00',
        '%ZZ',
        '%',
        '',
        '9007199254740993',
        '1'.repeat(30),
        '%EF%BC%95',
        '%D9%A1',
      ),
      percentEncoded,
    );
    const status = fc.oneof(
      fc.constantFrom(...PET_STATUSES),
      fc.constantFrom(
        'Available',
        'SOLD',
        'available%20',
        '%61vailable',
        'available%00',
        '',
        'lost',
        'available,sold',
        'sold+',
      ),
    );
    const name = fc.constantFrom(
      'li%6Dit',
      '%73tatus',
      'cu%72sor',
      'LIMIT',
      'Status',
      'limit[]',
      'limit[0]',
      'limit.',
      '+limit',
      'limit%00',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'x',
      '',
    );
    const pair = fc.oneof(
      { weight: 3, arbitrary: limit.map((v) => `limit=${v}`) },
      { weight: 3, arbitrary: status.map((v) => `status=${v}`) },
      { weight: 2, arbitrary: cursor.map((v) => `cursor=${v}`) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(name, fc.oneof(limit, status, targetText(8)))
          .map(([n, v]) => `${n}=${v}`),
      },
      { weight: 1, arbitrary: fc.constantFrom('limit', 'status', 'cursor', '=', '&', '==') },
      {
        weight: 1,
        arbitrary: fc.tuple(targetText(10), percentEncoded).map(([a, b]) => `${a}${b}`),
      },
    );
    const unknownCount = fc.oneof(
      { weight: 4, arbitrary: fc.constant(0) },
      { weight: 2, arbitrary: fc.integer({ min: 1, max: 5 }) },
      { weight: 1, arbitrary: fc.integer({ min: 995, max: 1_100 }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { maxLength: 4 }), unknownCount, async (pairs, unknown) => {
        const filler = Array.from({ length: unknown }, (_, i) => `u${i}=1`);
        const query = [...filler, ...pairs].join('&');
        const answer = await exchange(rawRequest('GET', `/v1/pets?${query}`, [keyHeader()]));
        expectWithinRules(answer, ['/v1/pets']);
        const expected = expectedList(query);
        if ('fields' in expected) {
          expectError(answer, 400, 'validation_failed', expected.fields);
          return;
        }
        expect(answer.status, answer.body).toBe(200);
        const page = acknowledged.page(expected.filter);
        const pets = JSON.parse(answer.body);
        expect(pets).toEqual(page.pets);
        const next = nextPageUrl(answer.headers.link);
        expect(next !== undefined, 'a next page is linked when more pets match').toBe(page.hasMore);
        if (next !== undefined) {
          const params = new URL(next).searchParams;
          expect(params.get('limit')).toBe(String(expected.filter.limit));
          expect(params.get('status')).toBe(expected.filter.status ?? null);
          harvestCursor(answer.headers.link, pets);
        }
      }),
      propertyRuns(200),
    );
  });

  it('getPet answers a petId in canonical decimal (as sent, not percent-encoded) of an acknowledged pet with that pet unchanged, any other petId with 404 not_found, always with the deprecation headers', async () => {
    const ids = acknowledged.all().map((pet) => pet.id);
    const lastId = Math.max(...ids);
    const id = fc.constantFrom(...ids);
    const segment = fc.oneof(
      { weight: 3, arbitrary: id.map(String) },
      {
        weight: 3,
        arbitrary: fc
          .tuple(
            id,
            fc.constantFrom('0', '+', '-', '%20', '%2B', ' ', '\t'),
            fc.constantFrom('', '.0', 'e0', '%00', '%20', ' ', '/', '?x=1', '#'),
          )
          .map(([n, before, after]) => `${before}${n}${after}`),
      },
      {
        weight: 2,
        arbitrary: id.map((n) =>
          [...String(n)].map((digit) => `%${digit.charCodeAt(0).toString(16)}`).join(''),
        ),
      },
      {
        weight: 2,
        arbitrary: fc
          .oneof(
            fc.integer({ min: lastId + 1, max: 2 ** 31 }),
            fc.constantFrom(0, 2 ** 31, 2 ** 31 - 1, 2 ** 32, MAX_INTEGER_ID, MAX_INTEGER_ID + 1),
          )
          .map(String),
      },
      {
        weight: 2,
        arbitrary: fc.oneof(
          targetText(12),
          percentEncoded,
          fc.constantFrom('.', '..', '%2e%2e', '%D9%A1', '0x1', '1e0', '1'.repeat(40)),
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .uint8Array({ minLength: 1, maxLength: 6 })
          .map((bytes) => Buffer.from(bytes).toString('latin1')),
      },
    );
    await fc.assert(
      fc.asyncProperty(segment, async (raw) => {
        // The parser takes spaces before the HTTP version as one separator (RFC 9112 §3 allows it).
        const target = `/v1/pets/${raw}`.replace(/ +$/, '');
        // `?` starts the query, and `/` another segment: the petId is what comes before them.
        const [path = ''] = target.split('?');
        const petId = path.slice('/v1/pets/'.length);
        const answers = (await exchangeRaw(api.port, rawRequest('GET', target, [keyHeader()]))).map(
          fromRaw,
        );
        expect(answers).toHaveLength(1);
        const answer = answers[0] as Answer;
        if (refusedInTarget(target) || target.includes('#')) {
          // Bytes a request target may not carry, and a fragment, are refused before routing.
          expectWithinRules(answer);
          expectError(answer, 400, 'malformed_request');
          return;
        }
        expectWithinRules(answer, [path]);
        if (petId === '' || petId.includes('/')) {
          // `/v1/pets/` and `/v1/pets/1/x` are other paths, not getPet's.
          expectError(answer, 404, 'not_found');
          return;
        }
        for (const [header, value] of Object.entries(GET_PET_DEPRECATION_HEADERS))
          expect(answer.headers[header.toLowerCase()], header).toBe(value);
        // An id is its digits as sent: a percent-encoded one (`%31`) is an alias, so no id.
        const pet = CANONICAL_DECIMAL.test(petId) ? acknowledged.get(Number(petId)) : undefined;
        if (pet === undefined) {
          expectError(answer, 404, 'not_found');
        } else {
          expect(answer.status, answer.body).toBe(200);
          expect(JSON.parse(answer.body)).toEqual(pet);
        }
      }),
      propertyRuns(200),
    );
  });

  it('every operation refuses any Authorization but a bearer API key with 401 and its challenge (storing nothing), whatever odd headers come with it; a sane X-Request-Id is echoed', async () => {
    const key = api.apiKey;
    const visible = (maxLength: number) =>
      fc
        .string({ unit: 'binary', maxLength })
        .map((text) => Buffer.from(text).toString('latin1'))
        .filter((text) => !/[\r\n]/.test(text));
    const authorization = fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .tuple(
            fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR'),
            fc.constantFrom(' ', '\t', '  ', ' \t '),
            fc.constantFrom('', ' ', '\t', ' \t'),
          )
          .map(([scheme, gap, tail]) => `${scheme}${gap}${key}${tail}`),
      },
      { weight: 1, arbitrary: fc.constantFrom(undefined, '', ' ', '\t') },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          'Bearer',
          'Bearer ',
          `Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
          `Token ${key}`,
          `Bearer${key}`,
          `Bearer ${key} extra`,
          `Bearer ${key},`,
          `Bearer "${key}"`,
          key,
          `Bearer ${key.slice(0, -1)}`,
          `Bearer ${key}x`,
          `Bearer ${key.toUpperCase()}`,
          `Bearer ask_${'A'.repeat(49)}`,
          `Bearer ${'x'.repeat(5_000)}`,
          `Bearer ${key}\u00e9`,
          `Bearer, Bearer ${key}`,
          `Bearer \u0001${key}`,
          `Bearer ${key}\u007f`,
          `\u00a0Bearer ${key}`,
        ),
      },
      { weight: 2, arbitrary: visible(20) },
    );
    const requestId = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
      fc.constantFrom('', ' ', 'a b', 'x'.repeat(129), '<script>', 'id/1', '\u00e9t\u00e9'),
    );
    const oddHeader = fc.oneof(
      requestId.map((value) => ['X-Request-Id', value] as const),
      fc.tuple(
        fc.constantFrom(
          'Accept',
          'Accept-Encoding',
          'Accept-Language',
          'Expect',
          'Range',
          'If-None-Match',
          'Cookie',
          'Referer',
          'User-Agent',
          'Content-Type',
          'X-Custom',
          'Idempotency-Key',
        ),
        visible(40),
      ),
    );
    const operation = fc.constantFrom('listPets', 'getPet', 'createPet');
    const ids = acknowledged.all().map((pet) => pet.id);
    await fc.assert(
      fc.asyncProperty(
        operation,
        authorization,
        fc.uniqueArray(oddHeader, { maxLength: 3, selector: ([name]) => name.toLowerCase() }),
        fc.constantFrom(...ids),
        newPet,
        async (op, auth, odd, id, pet) => {
          const headers: Array<readonly [string, string]> = [
            ['X-Forwarded-For', freshAddress()],
            ...odd,
          ];
          if (auth !== undefined) headers.push(['Authorization', auth]);
          const body = op === 'createPet' ? jsonText(pet) : '';
          const target = op === 'getPet' ? `/v1/pets/${id}` : '/v1/pets';
          if (op === 'createPet') {
            // The odd headers come first: a Content-Type among them is replaced by this one.
            const own = headers.filter(([name]) => !/^(content-type|idempotency-key)$/i.test(name));
            headers.splice(
              0,
              headers.length,
              ...own,
              ['Content-Type', 'application/json'],
              ['Content-Length', String(Buffer.byteLength(body))],
            );
          }
          const before = await api.db.pet.count();
          const answer = await exchange(
            rawRequest(op === 'createPet' ? 'POST' : 'GET', target, headers, body),
          );
          const created =
            answer.status === 201 ? STRICT_PET.parse(JSON.parse(answer.body)) : undefined;
          if (created) acknowledged.acknowledge(created);
          expect((await api.db.pet.count()) - before).toBe(created ? 1 : 0);

          if (headers.some(([, value]) => refusedInHeaderValue(value))) {
            expectWithinRules(answer);
            expectError(answer, 400, 'malformed_request');
            return;
          }
          expectWithinRules(answer, [target, 'POST', 'GET']);
          const sentId = odd
            .find(([name]) => name === 'X-Request-Id')?.[1]
            .replace(/^[ \t]+|[ \t]+$/g, '');
          if (sentId !== undefined && /^[A-Za-z0-9_.:-]{1,128}$/.test(sentId))
            expect(answer.headers['x-request-id']).toBe(sentId);
          else expect(answer.headers['x-request-id']).not.toBe(sentId);

          const credential = auth?.replace(/^[ \t]+|[ \t]+$/g, '') ?? '';
          // The scheme is case-insensitive; the key is not.
          if (/^bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(credential)?.[1] === key) {
            expect(answer.status, answer.body).toBe(op === 'createPet' ? 201 : 200);
            if (op === 'getPet') expect(JSON.parse(answer.body)).toEqual(acknowledged.get(id));
            if (created) expect(created).toEqual({ id: created.id, status: 'available', ...pet });
            return;
          }
          expectError(answer, 401, 'unauthorized');
          expect(answer.headers['www-authenticate']).toBe(
            credential === ''
              ? 'Bearer realm="animal-store"'
              : 'Bearer realm="animal-store", error="invalid_token"',
          );
        },
      ),
      propertyRuns(150),
    );
  });

  it('at the end, every acknowledged pet is listed unchanged, walking every page by its Link, and nothing else is stored', async () => {
    await expectListedUnchanged(api, acknowledged);
  });
});
