import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  deepPagePath,
  harvestPageLinks,
  nextPageUrl,
  type PageLinks,
  pageAtAnyLimit,
} from './page-links.js';
import { statusFor } from './seeding.js';

const ORIGIN = 'http://127.0.0.1:4010';
const API_KEY = 'ask_bench';

/**
 * The listing of a server holding `count` pets (ids 1 to count, statuses as seeded), answering
 * as the interface says: `limit`, `status` and `cursor`, and an absolute `Link: rel="next"`
 * whose cursor is signed by `signer`.
 */
function fakeListing(count: number, signer = 'server-a') {
  const pets = Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    status: statusFor(index),
  }));
  const asked: string[] = [];
  const fetchPage = async (url: string, init?: RequestInit) => {
    asked.push(url);
    if (new Headers(init?.headers).get('authorization') !== `Bearer ${API_KEY}`) {
      return new Response('{}', { status: 401 });
    }
    const query = new URL(url).searchParams;
    const limit = Number(query.get('limit') ?? 20);
    const status = query.get('status');
    const afterId = Number(query.get('cursor')?.split(`.${signer}`)[0] ?? 0);
    const matching = pets.filter((pet) => pet.id > afterId && (!status || pet.status === status));
    const page = matching.slice(0, limit);
    const headers = new Headers();
    const last = page.at(-1);
    if (matching.length > limit && last) {
      const next = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}) });
      next.set('cursor', `${last.id}.${signer}`);
      headers.set('link', `<${ORIGIN}/v1/pets?${next}>; rel="next"`);
    }
    return new Response(JSON.stringify(page), { status: 200, headers });
  };
  return { fetchPage, asked };
}

const server = { origin: ORIGIN, label: 'fake' };

describe('nextPageUrl', () => {
  it('is the target of rel="next"', () => {
    const header = `<${ORIGIN}/v1/pets?limit=20&cursor=20.abc>; rel="next"`;
    expect(nextPageUrl(header)).toBe(`${ORIGIN}/v1/pets?limit=20&cursor=20.abc`);
  });

  it('finds rel="next" among other links', () => {
    const header = `<${ORIGIN}/v1/pets>; rel="first", <${ORIGIN}/v1/pets?cursor=5.x>; rel="next"`;
    expect(nextPageUrl(header)).toBe(`${ORIGIN}/v1/pets?cursor=5.x`);
  });

  it('is undefined on the last page', () => {
    expect(nextPageUrl(null)).toBeUndefined();
    expect(nextPageUrl(`<${ORIGIN}/v1/pets>; rel="first"`)).toBeUndefined();
  });
});

describe('pageAtAnyLimit', () => {
  it("puts each call's limit in place of the link's, keeping status and cursor as received", () => {
    const page = pageAtAnyLimit(`${ORIGIN}/v1/pets?limit=100&status=sold&cursor=40.3q2-7w_A`);
    expect(page(7)).toBe('/v1/pets?limit=7&status=sold&cursor=40.3q2-7w_A');
    expect(page(100)).toBe('/v1/pets?limit=100&status=sold&cursor=40.3q2-7w_A');
  });

  it('adds a limit to a link without one', () => {
    expect(pageAtAnyLimit(`${ORIGIN}/v1/pets`)(3)).toBe('/v1/pets?limit=3');
  });
});

describe('harvestPageLinks', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("walks every listing to its last page and keeps the server's own next links", async () => {
    const listing = fakeListing(1_000, 'server-a');
    vi.stubGlobal('fetch', listing.fetchPage);

    const links = await harvestPageLinks(server, API_KEY);

    // 1,000 pets: 500 available, 300 pending, 200 sold, in pages of 100; the last page has none.
    expect(links.all).toHaveLength(9);
    expect(links.available).toHaveLength(4);
    expect(links.pending).toHaveLength(2);
    expect(links.sold).toHaveLength(1);
    expect(links.all[0]).toBe(`${ORIGIN}/v1/pets?limit=100&cursor=100.server-a`);
    expect(links.sold[0]).toBe(`${ORIGIN}/v1/pets?limit=100&status=sold&cursor=500.server-a`);
    expect(listing.asked).toHaveLength(10 + 5 + 3 + 2);
  });

  it('refuses a listing that fits on one page: it has no cursor to draw', async () => {
    vi.stubGlobal('fetch', fakeListing(500).fetchPage);
    await expect(harvestPageLinks(server, API_KEY)).rejects.toThrow(/sold pets fit on one page/);
  });

  it('says which server refused the walk', async () => {
    vi.stubGlobal('fetch', fakeListing(1_000).fetchPage);
    await expect(harvestPageLinks(server, 'ask_other')).rejects.toThrow(/fake: paging .* 401/);
  });
});

describe('deepPagePath', () => {
  const links: PageLinks = {
    all: Array.from(
      { length: 99 },
      (_, k) => `${ORIGIN}/v1/pets?limit=100&cursor=${(k + 1) * 100}.s`,
    ),
    available: [],
    pending: [],
    sold: [],
  };

  it('is the first page past at least that many pets, at the limit asked', () => {
    expect(deepPagePath(links)).toBe('/v1/pets?limit=20&cursor=5000.s');
    expect(deepPagePath(links, 250, 5)).toBe('/v1/pets?limit=5&cursor=300.s');
  });

  it('refuses a list that ends before', () => {
    expect(() => deepPagePath(links, 10_000)).toThrow(/ended before 10000 pets/);
  });
});
