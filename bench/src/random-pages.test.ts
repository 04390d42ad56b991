import type { Request } from 'autocannon';
import { describe, expect, it } from 'vitest';
import { LISTINGS, type Listing, MAX_LIMIT, type PageLinks } from './page-links.js';
import { randomPageShape, seededRandom } from './random-pages.js';

/**
 * Next links of the shape a seeded server issues (10,000 pets walked 100 a page), with cursors
 * that only `server` would sign, each naming the listing and position it was issued for.
 */
function seededServerLinks(server: string): PageLinks {
  const walk = (listing: Listing, pets: number) =>
    Array.from({ length: pets / MAX_LIMIT - 1 }, (_, position) => {
      const query = new URLSearchParams({ limit: String(MAX_LIMIT) });
      if (listing !== 'all') query.set('status', listing);
      query.set('cursor', `${listing}-${position}.${server}`);
      return `http://${server}/v1/pets?${query}`;
    });
  return {
    all: walk('all', 10_000),
    available: walk('available', 5_000),
    pending: walk('pending', 3_000),
    sold: walk('sold', 2_000),
  };
}

interface PageAsked {
  listing: Listing;
  /** Which of the listing's cursors, by position; -1 for a cursor issued for another. */
  position: number;
  limit: number;
}

/** What a request asks for, read back from its path. */
function pageAsked(request: Request): PageAsked {
  const query = new URL(request.path ?? '', 'http://any').searchParams;
  const listing = (query.get('status') ?? 'all') as Listing;
  const [issuedFor, position] = query.get('cursor')?.split('.')[0]?.split('-') ?? [];
  return {
    listing,
    position: issuedFor === listing ? Number(position) : -1,
    limit: Number(query.get('limit')),
  };
}

function draw(links: PageLinks, count: number): PageAsked[] {
  const shape = randomPageShape(links);
  return Array.from({ length: count }, () => pageAsked(shape({})));
}

describe('seededRandom', () => {
  it('repeats its sequence for a seed, and differs for another', () => {
    const sequence = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 5 }, () => random());
    };
    expect(sequence(42)).toEqual(sequence(42));
    expect(sequence(42)).not.toEqual(sequence(43));
  });

  it('draws from [0, 1)', () => {
    const random = seededRandom(7);
    const values = Array.from({ length: 10_000 }, () => random());
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
  });
});

describe('randomPageShape', () => {
  const linksOfA = seededServerLinks('server-a');
  const linksOfB = seededServerLinks('server-b');

  it('asks every server for the same pages, each through its own cursors', () => {
    const shapeOfB = randomPageShape(linksOfB);
    for (let sent = 0; sent < 1_000; sent++) {
      const path = shapeOfB({}).path ?? '';
      expect(path).toMatch(/cursor=[a-z]+-\d+\.server-b$/);
    }
    expect(draw(linksOfA, 1_000)).toEqual(draw(linksOfB, 1_000));
  });

  it('asks a GET with a cursor the server issued for the listing, keeping the rest', () => {
    const request = randomPageShape(linksOfA)({ headers: { authorization: 'Bearer k' } });
    expect(request).toMatchObject({ method: 'GET', headers: { authorization: 'Bearer k' } });
    expect(draw(linksOfA, 1_000).every((asked) => asked.position >= 0)).toBe(true);
  });

  it('draws every limit from 1 to 100, every listing, and the deepest cursors', () => {
    const asked = draw(linksOfA, 20_000);
    const limits = new Set(asked.map((page) => page.limit));
    expect([...limits].sort((a, b) => a - b)).toEqual(
      Array.from({ length: MAX_LIMIT }, (_, i) => i + 1),
    );
    expect(new Set(asked.map((page) => page.listing))).toEqual(new Set(LISTINGS));
    for (const listing of LISTINGS) {
      const deepest = linksOfA[listing].length - 1;
      expect(asked.some((page) => page.listing === listing && page.position === deepest)).toBe(
        true,
      );
    }
  });

  it('hardly ever asks two connections of 50 for the same page at once', () => {
    const asked = draw(linksOfA, 10_000).map((page) => JSON.stringify(page));
    let repeats = 0;
    for (let start = 0; start < asked.length; start += 50) {
      repeats += 50 - new Set(asked.slice(start, start + 50)).size;
    }
    // 200 windows of 50 requests, a repeat in about one in ten (the 19 cursors of `sold` repeat
    // most): where list20 repeats one page 49 times in every window.
    expect(repeats).toBeLessThan(40);
  });
});
