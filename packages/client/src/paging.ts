import type { Contract, Pet } from '@animal-store/contract';
import type { ClientInferRequest, ClientInferResponses } from '@ts-rest/core';
import { findLink } from './link-header.js';

type ListPetsRoute = Contract['pets']['listPets'];

/** The query of listPets: `limit`, `status` and `cursor`, all optional. */
export type ListPetsQuery = ClientInferRequest<ListPetsRoute>['query'];

/** What to list: `status` to filter, `limit` for the page size. Paging supplies the cursor. */
export type PetsFilter = Omit<ListPetsQuery, 'cursor'>;

/** Every answer listPets can give, discriminated by `status`. */
export type ListPetsResult = ClientInferResponses<ListPetsRoute>;

/** The answers of listPets other than a page. */
export type ListPetsFailure = Exclude<ListPetsResult, { status: 200 }>;

/** A 200 of listPets with the cursor of the next page; undefined on the last page. */
export type ListPetsPage = Extract<ListPetsResult, { status: 200 }> & {
  nextCursor: string | undefined;
};

export type ListPetsPageResult = ListPetsPage | ListPetsFailure;

/** Thrown by the pet iterator when a page cannot be fetched; `response` is the typed answer. */
export class ListPetsError extends Error {
  override readonly name = 'ListPetsError';
  readonly response: ListPetsFailure;

  constructor(response: ListPetsFailure) {
    super(`listPets answered ${response.status} ${response.body.code}: ${response.body.message}`);
    this.response = response;
  }
}

/**
 * The `cursor` of the `Link: rel="next"` target, or undefined when there is no next page.
 * Only the cursor is taken: the next request goes to the client's own base URL with the
 * caller's filter, so the API key never goes to an origin that a response header names.
 */
export function nextPageCursor(headers: Headers): string | undefined {
  const next = findLink(headers.get('link'), 'next');
  if (next === undefined) return undefined;
  // The interface sends an absolute URL; the base only makes a relative one readable too.
  return new URL(next, 'http://relative.invalid').searchParams.get('cursor') ?? undefined;
}

type ListPets = (args: { query: ListPetsQuery }) => Promise<ListPetsResult>;

export async function fetchPetsPage(
  listPets: ListPets,
  query: ListPetsQuery = {},
): Promise<ListPetsPageResult> {
  const result = await listPets({ query });
  if (result.status !== 200) return result;
  return { ...result, nextCursor: nextPageCursor(result.headers) };
}

export async function* iteratePets(
  listPets: ListPets,
  filter: PetsFilter = {},
): AsyncGenerator<Pet, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPetsPage(
      listPets,
      cursor === undefined ? filter : { ...filter, cursor },
    );
    if (page.status !== 200) throw new ListPetsError(page);
    yield* page.body;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}
