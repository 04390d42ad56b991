/** Reading a page of `listPets` as a client does: its pets, and the `Link` to the next one. */
import { type Pet, petsContract } from '@animal-store/contract';
import { expectBody, expectStatus, expectThat } from './expectations.js';
import type { Exchange } from './http/exchange.js';
import { linkWithRel } from './link-header.js';
import type { Probe } from './rule.js';

export interface Page {
  readonly exchange: Exchange;
  readonly pets: readonly Pet[];
  /** The absolute URL of the next page; undefined on the last. */
  readonly next: URL | undefined;
}

function nextPageUrl(exchange: Exchange): URL | undefined {
  const next = linkWithRel(exchange.response.headers.link, 'next');
  if (next === undefined) return undefined;
  expectThat(URL.canParse(next), `the rel="next" URL is not absolute: ${next}`, exchange);
  return new URL(next);
}

export async function readPage(probe: Probe, target: string): Promise<Page> {
  const exchange = await probe.send({ method: 'GET', target });
  expectStatus(exchange, 200);
  const pets = expectBody(exchange, petsContract.listPets.responses[200]);
  const ids = pets.map((pet) => pet.id);
  expectThat(
    ids.every((id, index) => index === 0 || id > (ids[index - 1] as number)),
    `the page's ids are not in ascending order: ${ids.join(', ')}`,
    exchange,
  );
  return { exchange, pets, next: nextPageUrl(exchange) };
}

/** The id of the page's last pet; undefined for an empty page. */
export const lastId = (page: Page) => page.pets.at(-1)?.id;
