import { expectStatus, type PetStatus } from './seeding.js';
import type { RunningServer } from './server-process.js';

/** What a client can page through: every pet (no `status`), or the pets of one status. */
export type Listing = 'all' | PetStatus;

export const LISTINGS: readonly Listing[] = ['all', 'available', 'pending', 'sold'];

/** The largest `limit` the interface allows; the walks use it, for the fewest requests. */
export const MAX_LIMIT = 100;

/**
 * The `Link: rel="next"` URLs a server issued while its listings were walked from the first page
 * to the last, `MAX_LIMIT` pets a page, as received: the k-th of a listing points past its
 * first (k + 1) × MAX_LIMIT pets. The cursors in them are that server's own, opaque and
 * signed, so every server under test is walked for its own links.
 */
export type PageLinks = Record<Listing, readonly string[]>;

const NEXT_LINK = /<([^>]+)>;\s*rel="next"/;

/** The URL of a `Link` header's `rel="next"`, or undefined on the last page. */
export function nextPageUrl(linkHeader: string | null): string | undefined {
  return NEXT_LINK.exec(linkHeader ?? '')?.[1];
}

/**
 * The page `url` points at, as a request path, at any `limit`: the URL is parsed once, and each
 * call only writes the limit in front of the rest of its query, because the load generator asks
 * for one path per request.
 */
export function pageAtAnyLimit(url: string): (limit: number) => string {
  const { pathname, searchParams } = new URL(url);
  searchParams.delete('limit');
  const rest = searchParams.size > 0 ? `&${searchParams}` : '';
  return (limit) => `${pathname}?limit=${limit}${rest}`;
}

type PagedServer = Pick<RunningServer, 'origin' | 'label'>;

async function walkListing(
  server: PagedServer,
  apiKey: string,
  listing: Listing,
): Promise<string[]> {
  const first = new URL('/v1/pets', server.origin);
  first.searchParams.set('limit', String(MAX_LIMIT));
  if (listing !== 'all') first.searchParams.set('status', listing);
  const links: string[] = [];
  let url: string | undefined = first.href;
  while (url !== undefined) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    await expectStatus(response, 200, `${server.label}: paging ${listing} pets`);
    url = nextPageUrl(response.headers.get('link'));
    if (url !== undefined) links.push(url);
  }
  if (links.length === 0) throw new Error(`${server.label}: ${listing} pets fit on one page`);
  return links;
}

/** Walks every listing of a seeded server, as a client pages: by following `rel="next"`. */
export async function harvestPageLinks(server: PagedServer, apiKey: string): Promise<PageLinks> {
  const walk = (listing: Listing) => walkListing(server, apiKey, listing);
  const [all, available, pending, sold] = await Promise.all([
    walk('all'),
    walk('available'),
    walk('pending'),
    walk('sold'),
  ]);
  return { all, available, pending, sold };
}

/**
 * The path of a page deep in the list of all pets, past at least `afterAtLeast` of them, as a
 * client reaches it. It asks for `limit` pets, so the page compares with `list20`.
 */
export function deepPagePath(links: PageLinks, afterAtLeast = 5_000, limit = 20): string {
  const link = links.all[Math.ceil(afterAtLeast / MAX_LIMIT) - 1];
  if (link === undefined) throw new Error(`the list ended before ${afterAtLeast} pets`);
  return pageAtAnyLimit(link)(limit);
}
