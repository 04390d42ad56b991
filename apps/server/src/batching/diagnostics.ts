import { channel } from 'node:diagnostics_channel';

/**
 * What the batching layer tells whoever listens (tests, a profiler), on Node's diagnostics
 * channels: nothing is built or sent while nobody subscribes.
 */
export const BATCHING_CHANNELS = {
  /** `{ turn, requests }`: a turn batch went on, its requests stamped with `turn`. */
  released: 'animal-store:batching:released',
  /**
   * `{ store, method, turns, full }`: one shared call of a batched store method was made; `turns`
   * holds, for each request whose first store call is in it, the turn that admitted it.
   */
  dispatched: 'animal-store:batching:dispatched',
} as const;

export interface ReleasedMessage {
  turn: number;
  requests: number;
}

export interface DispatchedMessage {
  store: string;
  method: string;
  turns: number[];
  /** The call held as many items as one call may: later ones go in the next. */
  full: boolean;
}

const released = channel(BATCHING_CHANNELS.released);
const dispatched = channel(BATCHING_CHANNELS.dispatched);

export function publishRelease(turn: number, requests: number): void {
  if (released.hasSubscribers) released.publish({ turn, requests } satisfies ReleasedMessage);
}

export function publishDispatch(message: () => DispatchedMessage): void {
  if (dispatched.hasSubscribers) dispatched.publish(message());
}
