import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { contextOf } from '../http/request-context.js';
import { publishRelease } from './diagnostics.js';

/**
 * Items gathered during one turn of the event loop, handed on together in that turn's check
 * phase, from one callback.
 */
export class TurnBatch<Item> {
  #items: Item[] = [];
  readonly #handle: (items: Item[]) => void;

  /** @param handle runs once per turn, in its check phase, with that turn's items in order */
  constructor(handle: (items: Item[]) => void) {
    this.#handle = handle;
  }

  add(item: Item): void {
    this.#items.push(item);
    if (this.#items.length === 1) setImmediate(this.#flush);
  }

  readonly #flush = () => {
    const items = this.#items;
    this.#items = [];
    this.#handle(items);
  };
}

/** A request waiting in its turn's batch. */
export interface BatchedRequest {
  req: Request;
  res: Response;
  next: NextFunction;
}

/**
 * The batching stage: the requests that reach it in one turn of the event loop wait for the
 * turn's check phase, and `handle` gets them together. Each request's context records the turn
 * it went on in (`turn`), which the batched stores read (batched-store.ts).
 */
export function inTurnBatches(handle: (batch: BatchedRequest[]) => void): RequestHandler {
  let turns = 0;
  const batch = new TurnBatch<BatchedRequest>((requests) => {
    turns += 1;
    for (const { res } of requests) contextOf(res).turn = turns;
    publishRelease(turns, requests.length);
    handle(requests);
  });
  return (req, res, next) => batch.add({ req, res, next });
}
