import type { ClientBehaviour } from './client-behaviour.js';

/** Every request of the overload mode is given up after this long, as clients with a timeout do. */
export const DEADLINE_MS = 1_000;

/** The closed-loop level whose 2xx per second is the target's capacity, the open loop's unit. */
export const CAPACITY_CONNECTIONS = 50;

/**
 * Most requests the open loop keeps outstanding: as many as the largest closed-loop crowd. A
 * server that answers nothing would otherwise have the generator open a socket per arrival, up
 * to 4 × capacity × the deadline of them, and measure the generator's limits instead.
 */
export const MAX_OUTSTANDING = 4_000;

export type OverloadLevel =
  | { kind: 'closed'; connections: number; behaviour: ClientBehaviour }
  | { kind: 'open'; capacityMultiple: number };

/**
 * Issue 56's levels: clients that wait for each answer, from normal load to a crowd, the crowd
 * both naive and polite; then arrivals that keep coming at multiples of what the server served.
 * The first level measures the capacity the open loop needs, so it must come first.
 */
export const OVERLOAD_LEVELS: readonly OverloadLevel[] = [
  { kind: 'closed', connections: CAPACITY_CONNECTIONS, behaviour: 'naive' },
  { kind: 'closed', connections: 1_000, behaviour: 'naive' },
  { kind: 'closed', connections: 4_000, behaviour: 'naive' },
  { kind: 'closed', connections: 4_000, behaviour: 'polite' },
  { kind: 'open', capacityMultiple: 1 },
  { kind: 'open', capacityMultiple: 2 },
  { kind: 'open', capacityMultiple: 4 },
];

/** The level's column heading. */
export function levelLabel(level: OverloadLevel): string {
  if (level.kind === 'open') return `open ${level.capacityMultiple}× capacity`;
  const clients = `closed ${level.connections.toLocaleString('en')}`;
  // At normal load nothing is shed, so there the two behaviours are the same client.
  return level.connections === CAPACITY_CONNECTIONS ? clients : `${clients} ${level.behaviour}`;
}

/** Arrivals per second for an open level, from the target's capacity; at least one. */
export const arrivalRate = (capacityPerSecond: number, capacityMultiple: number): number =>
  Math.max(1, Math.round(capacityPerSecond * capacityMultiple));
