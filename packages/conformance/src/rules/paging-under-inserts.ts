import { PAGE_SIZE, petsContract } from '@animal-store/contract';
import { expectBody, expectStatus, expectThat } from '../expectations.js';
import { type Page, readPage } from '../pages.js';
import { type Probe, type RuleGroup, skip } from '../rule.js';

/** How many pets the walk adds: one after each of its first pages. */
const INSERTS = 3;
/** A walk longer than this would spend a large part of a key's day: the rule gives up. */
const MAX_PAGES = 100;

async function addPet(probe: Probe, purpose: string): Promise<number> {
  const exchange = await probe.send({
    method: 'POST',
    target: '/v1/pets',
    body: {
      text: JSON.stringify({ name: `Conformance check: ${purpose}`, categoryId: 1 }),
      contentType: 'application/json',
    },
  });
  expectStatus(exchange, 201);
  return expectBody(exchange, petsContract.createPet.responses[201]).id;
}

/**
 * The first page of the walk: small pages on a small catalogue, so that the inserts land between
 * pages still to come; the largest pages on a big one, so that the walk stays short.
 */
async function firstPage(probe: Probe): Promise<Page> {
  const large = await readPage(probe, `/v1/pets?limit=${PAGE_SIZE.max}`);
  return large.next === undefined ? readPage(probe, '/v1/pets?limit=2') : large;
}

export const pagingUnderInsertsRules: RuleGroup = {
  name: 'Paging while pets are added (--allow-writes)',
  rules: [
    {
      name: 'ids increase in creation order',
      needs: 'writes',
      async check(probe) {
        const first = await addPet(probe, 'first of two');
        const second = await addPet(probe, 'second of two');
        expectThat(second > first, `a pet created after id ${first} got id ${second}`);
      },
    },
    {
      name: 'following rel="next" while pets are added answers each earlier pet once and each added one at most once',
      needs: 'writes',
      async check(probe) {
        const existing = [await addPet(probe, 'there when the walk began')];
        const seen = new Map<number, number>();
        let page = await firstPage(probe);
        let previousLast = 0;
        for (let pages = 1; ; pages++) {
          const firstId = page.pets[0]?.id;
          expectThat(
            firstId === undefined || firstId > previousLast,
            `the page after id ${previousLast} starts at id ${firstId}: a pet repeated or out of order`,
            page.exchange,
          );
          for (const pet of page.pets) seen.set(pet.id, (seen.get(pet.id) ?? 0) + 1);
          previousLast = page.pets.at(-1)?.id ?? previousLast;
          if (pages <= INSERTS) await addPet(probe, `added during a walk, after page ${pages}`);
          if (page.next === undefined) break;
          if (pages === MAX_PAGES) return skip(`the catalogue is longer than ${MAX_PAGES} pages`);
          page = await readPage(probe, page.next.toString());
        }
        for (const id of existing) {
          expectThat(
            seen.get(id) === 1,
            `pet ${id}, there when the walk began, was answered ${seen.get(id) ?? 0} times`,
          );
        }
      },
    },
  ],
};
