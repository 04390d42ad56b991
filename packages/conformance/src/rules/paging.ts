import { PAGE_SIZE, PET_STATUSES } from '@animal-store/contract';
import { expectThat, expectValidationDetails } from '../expectations.js';
import { lastId, type Page, readPage } from '../pages.js';
import { type Probe, type RuleGroup, skip } from '../rule.js';

function expectNextKeeps(page: Page, parameters: Record<string, string>): void {
  if (page.next === undefined) return;
  const query = page.next.searchParams;
  for (const [name, value] of Object.entries(parameters)) {
    expectThat(
      query.get(name) === value,
      `the rel="next" URL does not keep ${name}=${value}: ${page.next}`,
      page.exchange,
    );
  }
  expectThat(query.has('cursor'), `the rel="next" URL has no cursor: ${page.next}`, page.exchange);
}

function expectNoNextAfterShortPage(page: Page, limit: number): void {
  expectThat(
    page.pets.length === limit || page.next === undefined,
    `a page of ${page.pets.length} pets (fewer than limit=${limit}) links to a next page`,
    page.exchange,
  );
}

/**
 * A cursor the deployment issued with the first character of its signature changed: a whole
 * 6 bits of it, where the last character of a base64url signature also carries padding bits.
 */
function altered(cursor: string): string {
  const at = cursor.indexOf('.') + 1;
  const replacement = cursor[at] === 'A' ? 'B' : 'A';
  return `${cursor.slice(0, at)}${replacement}${cursor.slice(at + 1)}`;
}

/** Shaped as the deployment's cursors are, `<last id>.<signature>`, but signed by nobody. */
const FORGED_CURSOR = '1.AAAAAAAAAAAAAAAAAAAAAA';

const MAX_PAGES_FOLLOWED = 3;

export const pagingRules: RuleGroup = {
  name: 'Paging',
  rules: [
    {
      name: `listPets answers at most limit pets, ${PAGE_SIZE.default} without one, and writes the limit into rel="next"`,
      async check(probe) {
        const single = await readPage(probe, '/v1/pets?limit=1');
        expectThat(
          single.pets.length <= 1,
          `limit=1 answered ${single.pets.length} pets`,
          single.exchange,
        );
        expectNextKeeps(single, { limit: '1' });
        const unlimited = await readPage(probe, '/v1/pets');
        expectThat(
          unlimited.pets.length <= PAGE_SIZE.default,
          `no limit answered ${unlimited.pets.length} pets, more than ${PAGE_SIZE.default}`,
          unlimited.exchange,
        );
        expectNextKeeps(unlimited, { limit: String(PAGE_SIZE.default) });
        expectNoNextAfterShortPage(unlimited, PAGE_SIZE.default);
      },
    },
    {
      name: 'listPets pages follow Link rel="next" in ascending id order',
      async check(probe) {
        let page = await readPage(probe, '/v1/pets?limit=1');
        if (page.next === undefined) {
          return skip('the deployment has fewer than 2 pets: no page has a next one');
        }
        for (
          let followed = 0;
          page.next !== undefined && followed < MAX_PAGES_FOLLOWED;
          followed++
        ) {
          const previousLast = lastId(page) ?? 0;
          expectNextKeeps(page, { limit: '1' });
          page = await readPage(probe, page.next.toString());
          const first = page.pets[0];
          expectThat(first !== undefined, 'a page reached by rel="next" is empty', page.exchange);
          expectThat(
            (first?.id ?? 0) > previousLast,
            `the next page starts at id ${first?.id}, not after ${previousLast}`,
            page.exchange,
          );
        }
      },
    },
    {
      name: 'listPets answers 400 naming cursor to a cursor it did not issue or that was altered',
      async check(probe) {
        const page = await readPage(probe, '/v1/pets?limit=1');
        const issued = page.next?.searchParams.get('cursor');
        const cursor = issued ? altered(issued) : FORGED_CURSOR;
        const exchange = await probe.send({
          method: 'GET',
          target: `/v1/pets?limit=1&cursor=${encodeURIComponent(cursor)}`,
        });
        expectValidationDetails(exchange, ['cursor']);
      },
    },
    ...PET_STATUSES.map((status) => ({
      name: `listPets with status=${status} answers only such pets, and keeps the filter in rel="next"`,
      async check(probe: Probe) {
        const page = await readPage(probe, `/v1/pets?status=${status}&limit=${PAGE_SIZE.max}`);
        const other = page.pets.find((pet) => pet.status !== status);
        expectThat(
          other === undefined,
          `pet ${other?.id} has status ${other?.status}`,
          page.exchange,
        );
        expectNextKeeps(page, { status, limit: String(PAGE_SIZE.max) });
        expectNoNextAfterShortPage(page, PAGE_SIZE.max);
      },
    })),
  ],
};
