import type { Request } from 'autocannon';
import { LISTINGS, MAX_LIMIT, type PageLinks, pageAtAnyLimit } from './page-links.js';

/** Any fixed seed: what matters is that every server gets the same one. */
const RANDOM_PAGE_SEED = 0x5eed_1e55;

/** mulberry32: a small, fast PRNG whose sequence is fixed by its 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
}

const drawIndex = (random: () => number, length: number) => Math.floor(random() * length);

/**
 * Pages that hardly two requests in flight share, so that batching the requests of one
 * event-loop turn finds no statement to share: a listing (every pet, or one status) at random,
 * a cursor at random among those the server issued for it (deep pages as often as early ones),
 * and a `limit` from 1 to MAX_LIMIT at random.
 *
 * The draws pick positions, not cursor strings: the k-th cursor of a listing points past the
 * same number of pets on every server, so the same seed asks every server for the same pages.
 */
export function randomPageShape(links: PageLinks): (request: Request) => Request {
  const random = seededRandom(RANDOM_PAGE_SEED);
  const pagesByListing = LISTINGS.map((listing) => links[listing].map(pageAtAnyLimit));
  return (request) => {
    const pages = pagesByListing[drawIndex(random, pagesByListing.length)] ?? [];
    const page = pages[drawIndex(random, pages.length)];
    if (page === undefined) throw new Error('a listing without page links');
    const limit = 1 + drawIndex(random, MAX_LIMIT);
    return { ...request, method: 'GET', path: page(limit) };
  };
}
