import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

let api: TestServer;
const created: Pet[] = [];
const STATUSES = ['available', 'pending', 'sold'] as const;

beforeAll(async () => {
  api = await startTestServer({ publicUrl: 'https://pets.example.test' });
  for (let i = 0; i < 45; i += 1) {
    const status = STATUSES[i % 3];
    const res = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: `Pet ${i}`, categoryId: 1, status },
    });
    created.push(await res.json());
  }
});
afterAll(() => api.close());

function nextLink(res: { headers: Headers }): string | undefined {
  const link = res.headers.get('link');
  return link?.match(/^<([^>]+)>; rel="next"$/)?.[1];
}

/** Follows `rel="next"` from `path`, returning every page's pets. */
async function walk(path: string, onPage?: () => Promise<void>): Promise<Pet[][]> {
  const pages: Pet[][] = [];
  let url: string | undefined = `${api.baseUrl}${path}`;
  while (url) {
    const res = await fetch(url.replace('https://pets.example.test', api.baseUrl), {
      headers: { authorization: `Bearer ${api.apiKey}` },
    });
    expect(res.status).toBe(200);
    pages.push((await res.json()) as Pet[]);
    url = nextLink(res);
    await onPage?.();
  }
  return pages;
}

async function expectValidationFailed(path: string, field: string) {
  const res = await api.request(path);
  expect(res.status, path).toBe(400);
  const body = await res.json();
  expect(body).toMatchObject({ code: 'validation_failed', status: 400 });
  expect(body.details.map((detail: { path: string }) => detail.path)).toContain(field);
  return body.details as Array<{ path: string; message: string }>;
}

describe('listPets paging', () => {
  it('limit defaults to 20', async () => {
    const res = await api.request('/v1/pets');
    expect(((await res.json()) as Pet[]).length).toBe(20);
  });

  it('limit is an integer from 1 to 100', async () => {
    for (const limit of [1, 7, 100]) {
      const pets = (await (await api.request(`/v1/pets?limit=${limit}`)).json()) as Pet[];
      expect(pets.length).toBe(Math.min(limit, created.length));
    }
  });

  it('limit anything else (0, 101, abc, 1.5, empty, -1, 1e1, 05) is 400', async () => {
    for (const limit of ['0', '101', 'abc', '1.5', '', '-1', '1e1', '05', '%201', '1%20']) {
      await expectValidationFailed(`/v1/pets?limit=${limit}`, 'limit');
    }
  });

  it('status filters by one of the three values, else 400', async () => {
    for (const status of STATUSES) {
      const pets = (await (
        await api.request(`/v1/pets?status=${status}&limit=100`)
      ).json()) as Pet[];
      expect(pets.map((pet) => pet.id)).toEqual(
        created.filter((pet) => pet.status === status).map((pet) => pet.id),
      );
    }
    for (const status of ['adopted', 'AVAILABLE', '']) {
      await expectValidationFailed(`/v1/pets?status=${status}`, 'status');
    }
  });

  it('a repeated limit, status or cursor is 400, whose message says to give it once', async () => {
    const repeated = {
      limit: '/v1/pets?limit=5&limit=5',
      status: '/v1/pets?status=sold&status=sold',
      cursor: '/v1/pets?cursor=a&cursor=b',
    };
    for (const [field, path] of Object.entries(repeated)) {
      const details = await expectValidationFailed(path, field);
      expect(details.find((detail) => detail.path === field)?.message).toMatch(/given once$/);
    }
  });

  it('unknown query parameters are ignored', async () => {
    const res = await api.request('/v1/pets?limit=3&colour=brown&sort=desc&page=9');
    expect(res.status).toBe(200);
    expect(((await res.json()) as Pet[]).map((pet) => pet.id)).toEqual(
      created.slice(0, 3).map((pet) => pet.id),
    );
  });

  it('order is ascending id', async () => {
    const pets = (await (await api.request('/v1/pets?limit=100')).json()) as Pet[];
    const ids = pets.map((pet) => pet.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('Link rel="next" is an absolute URL that keeps limit and status and adds a cursor', async () => {
    const res = await api.request('/v1/pets?limit=5&status=pending');
    const next = nextLink(res);
    expect(next).toBeDefined();
    const url = new URL(next ?? '');
    expect(url.origin).toBe('https://pets.example.test');
    expect(url.pathname).toBe('/v1/pets');
    expect(url.searchParams.get('limit')).toBe('5');
    expect(url.searchParams.get('status')).toBe('pending');
    expect(url.searchParams.get('cursor')).toBeTruthy();
  });

  it('the last page has no rel="next"', async () => {
    const all = await api.request('/v1/pets?limit=100');
    expect(all.headers.get('link')).toBeNull();
    const exact = await api.request(`/v1/pets?limit=${created.length}`);
    expect(exact.headers.get('link')).toBeNull();
  });

  it('walking all pages returns every matching pet exactly once, in order', async () => {
    const pages = await walk('/v1/pets?limit=7');
    expect(pages.length).toBe(Math.ceil(created.length / 7));
    expect(pages.flat().map((pet) => pet.id)).toEqual(created.map((pet) => pet.id));
    const sold = await walk('/v1/pets?limit=4&status=sold');
    expect(sold.flat().map((pet) => pet.id)).toEqual(
      created.filter((p) => p.status === 'sold').map((p) => p.id),
    );
  });

  it('walking all pages returns every pet exactly once while other clients insert pets', async () => {
    const before = ((await (await api.request('/v1/pets?limit=100')).json()) as Pet[]).map(
      (pet) => pet.id,
    );
    let inserted = 0;
    const pages = await walk('/v1/pets?limit=6', async () => {
      await api.request('/v1/pets', {
        method: 'POST',
        json: { name: `Late ${inserted}`, categoryId: 1 },
      });
      inserted += 1;
    });
    const seen = pages.flat().map((pet) => pet.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, before.length)).toEqual(before);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it('a cursor that the server did not issue is 400', async () => {
    for (const cursor of ['abc', '5', '5.AAAAAAAAAAAAAAAAAAAAAA', 'eyJhZnRlciI6NX0']) {
      await expectValidationFailed(`/v1/pets?cursor=${encodeURIComponent(cursor)}`, 'cursor');
    }
  });

  it('a cursor the server did not issue is named beside the other invalid fields, one detail each', async () => {
    for (const [query, fields] of [
      ['limit=0&cursor=bogus', ['limit', 'cursor']],
      ['status=x&cursor=bogus', ['status', 'cursor']],
      ['limit=1&limit=2&status=x&cursor=5.AAAAAAAAAAAAAAAAAAAAAA', ['limit', 'status', 'cursor']],
    ] as const) {
      const res = await api.request(`/v1/pets?${query}`);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { details: Array<{ path: string; message: string }> };
      expect(body.details.map((detail) => detail.path).sort(), query).toEqual([...fields].sort());
      expect(body.details.find((detail) => detail.path === 'cursor')?.message).toBe(
        'is not a cursor this service issued',
      );
    }
    // An issued cursor beside an invalid field is not reported.
    const next = nextLink(await api.request('/v1/pets?limit=5')) ?? '';
    const cursor = new URL(next).searchParams.get('cursor') ?? '';
    const res = await api.request(`/v1/pets?limit=0&cursor=${encodeURIComponent(cursor)}`);
    const body = (await res.json()) as { details: Array<{ path: string }> };
    expect(body.details.map((detail) => detail.path)).toEqual(['limit']);
  });

  it('any altered cursor (an appended character, a flipped bit) is 400, never an alias', async () => {
    const next = nextLink(await api.request('/v1/pets?limit=5')) ?? '';
    const cursor = new URL(next).searchParams.get('cursor') ?? '';
    expect(
      (await api.request(`/v1/pets?limit=5&cursor=${encodeURIComponent(cursor)}`)).status,
    ).toBe(200);

    const variants = new Set<string>([
      `${cursor}A`,
      `${cursor}=`,
      `A${cursor}`,
      cursor.slice(0, -1),
      cursor.toUpperCase(),
    ]);
    for (let index = 0; index < cursor.length; index += 1) {
      const flipped = String.fromCharCode(cursor.charCodeAt(index) ^ 1);
      variants.add(cursor.slice(0, index) + flipped + cursor.slice(index + 1));
    }
    variants.delete(cursor);
    for (const variant of variants) {
      await expectValidationFailed(
        `/v1/pets?limit=5&cursor=${encodeURIComponent(variant)}`,
        'cursor',
      );
    }
  });

  it('the body stays a JSON array of Pet', async () => {
    const res = await api.request('/v1/pets?limit=2');
    const body = await res.json();
    expect(Array.isArray(body)).toBe(true);
    expect(body[0]).toEqual(created[0]);
  });
});
