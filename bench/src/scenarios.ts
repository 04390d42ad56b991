import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'autocannon';
import type { PageLinks } from './page-links.js';
import { randomPageShape } from './random-pages.js';
import { statusFor } from './seeding.js';

export const SCENARIO_NAMES = [
  'list20',
  'list100',
  'deep-page',
  'random-page',
  'get',
  'create',
  'create-idempotent',
  'mixed',
] as const;

export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** What the scenarios need from a seeded server. */
export interface ScenarioInputs {
  /** Ids of pets that exist. */
  petIds: readonly number[];
  /** A page reached through a cursor, deep into the list. */
  deepPagePath: string;
  /** The server's own next-page links, over every listing. */
  pageLinks: PageLinks;
}

type Shape = (request: Request) => Request;

/** Every run's idempotency keys differ from any earlier run's on the same server. */
const RUN_TAG = randomBytes(6).toString('base64url');
let created = 0;

const pick = <T>(items: readonly T[]): T => {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error('nothing to pick from');
  return item;
};

const listPage =
  (path: string): Shape =>
  (request) => ({ ...request, method: 'GET', path });

const getPet =
  (ids: readonly number[]): Shape =>
  (request) => ({ ...request, method: 'GET', path: `/v1/pets/${pick(ids)}` });

/** A new pet per request; with `idempotent`, under an Idempotency-Key never used before. */
const createPet =
  (idempotent: boolean): Shape =>
  (request) => {
    created += 1;
    const headers: IncomingHttpHeaders = { ...request.headers, 'content-type': 'application/json' };
    if (idempotent) headers['idempotency-key'] = `bench-${RUN_TAG}-${created}`;
    const body = JSON.stringify({
      name: `Bench pet ${created}`,
      categoryId: 1 + (created % 25),
      status: statusFor(created),
    });
    return { ...request, method: 'POST', path: '/v1/pets', headers, body };
  };

/** Picks one of `shapes` per request, by weight. */
function weighted(shapes: ReadonlyArray<[weight: number, shape: Shape]>): Shape {
  const total = shapes.reduce((sum, [weight]) => sum + weight, 0);
  return (request) => {
    let roll = Math.random() * total;
    for (const [weight, shape] of shapes) {
      roll -= weight;
      if (roll < 0) return shape(request);
    }
    const last = shapes.at(-1);
    if (!last) throw new Error('no request shapes');
    return last[1](request);
  };
}

/** The shape of the requests of `mixed`: 40% list20, 40% get, 20% create. */
export function mixedShape(inputs: ScenarioInputs): Shape {
  return weighted([
    [40, listPage('/v1/pets')],
    [40, getPet(inputs.petIds)],
    [20, createPet(false)],
  ]);
}

/**
 * The request (autocannon repeats it) a scenario sends. Fixed requests are built once;
 * the others vary per request through `setupRequest`.
 */
export function scenarioRequests(name: ScenarioName, inputs: ScenarioInputs): Request[] {
  switch (name) {
    case 'list20':
      return [{ method: 'GET', path: '/v1/pets' }];
    case 'list100':
      return [{ method: 'GET', path: '/v1/pets?limit=100&status=available' }];
    case 'deep-page':
      return [{ method: 'GET', path: inputs.deepPagePath }];
    case 'random-page':
      return [{ setupRequest: randomPageShape(inputs.pageLinks) }];
    case 'get':
      return [{ setupRequest: getPet(inputs.petIds) }];
    case 'create':
      return [{ setupRequest: createPet(false) }];
    case 'create-idempotent':
      return [{ setupRequest: createPet(true) }];
    case 'mixed':
      return [{ setupRequest: mixedShape(inputs) }];
  }
}
