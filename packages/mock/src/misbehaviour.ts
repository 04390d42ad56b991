/**
 * Faults a test asks for, served to the next API requests in the order asked: the server busy
 * (503 with Retry-After, as docs/interface.md "When the server is busy"), slow, or gone.
 */

/** What the next `times` API requests meet. */
export type Misbehaviour =
  | {
      readonly times: number;
      readonly kind: 'unavailable';
      /** The `Retry-After` of the 503, whole seconds; 1 unless given. */
      readonly retryAfterSeconds?: number;
    }
  /** Answered as usual, `delayMs` milliseconds of real time later. */
  | { readonly times: number; readonly kind: 'slow'; readonly delayMs: number }
  /** No answer: the connection is dropped (`Response.error()` from `handle`). */
  | { readonly times: number; readonly kind: 'drop' };

export class Misbehaviours {
  #queue: { fault: Misbehaviour; left: number }[] = [];

  add(fault: Misbehaviour): void {
    if (!Number.isSafeInteger(fault.times) || fault.times < 1) {
      throw new RangeError(`misbehave: times must be a whole number from 1, not ${fault.times}`);
    }
    this.#queue.push({ fault, left: fault.times });
  }

  /** The fault the next API request meets, if any; it is then spent for that request. */
  next(): Misbehaviour | undefined {
    const first = this.#queue[0];
    if (first === undefined) return undefined;
    first.left -= 1;
    if (first.left === 0) this.#queue.shift();
    return first.fault;
  }

  clear(): void {
    this.#queue = [];
  }
}
