/**
 * How long a shed client is told to wait (`Retry-After`, whole seconds), learned from how many
 * clients that waited as told are shed again. A client honouring `Retry-After` stays away for as
 * long as it is told, so the clients a crowd keeps away at once are the rate at which they are
 * shed times the wait: the longer the wait, the fewer sheds keep the same crowd away. A shed is
 * not free, it costs the server about half a served `get` (docs/performance.md), so the wait
 * grows while such sheds are more than a tenth of the requests served, and shrinks back while
 * they are fewer than a fortieth. Clients that come back before their wait is over are not
 * counted: a longer wait would not keep them away.
 */

/** How often the wait is reconsidered (ms): longer than the shortest wait a client is told. */
const WINDOW_MS = 1_000;
/** Sheds of clients that waited as told, per request served, past which the wait grows. */
const MOST_SHED_PER_SERVED = 1 / 10;
/** Below this, the wait shrinks. */
const FEWEST_SHED_PER_SERVED = 1 / 40;
/** The longest wait advised (s): well within what clients wait before giving up (60 s, ours). */
export const LONGEST_RETRY_AFTER_SECONDS = 30;

export class RetryAfterAdvice {
  #seconds = 1;
  #windowStartMs: number | undefined;
  #served = 0;
  #shed = 0;

  /** The `Retry-After` to send now. */
  get seconds(): number {
    return this.#seconds;
  }

  /** An admitted request was answered at `nowMs`. */
  served(nowMs: number): void {
    this.#reconsiderIfDue(nowMs);
    this.#served += 1;
  }

  /** A client that had waited as told, or was never told, was shed at `nowMs`. */
  shed(nowMs: number): void {
    this.#reconsiderIfDue(nowMs);
    this.#shed += 1;
  }

  /** Nothing has been shed for a while: the next crowd is told the shortest wait first. */
  reset(): void {
    this.#seconds = 1;
    this.#windowStartMs = undefined;
    this.#served = 0;
    this.#shed = 0;
  }

  #reconsiderIfDue(nowMs: number): void {
    this.#windowStartMs ??= nowMs;
    if (nowMs - this.#windowStartMs < WINDOW_MS) return;
    if (this.#shed > this.#served * MOST_SHED_PER_SERVED) {
      this.#seconds = Math.min(LONGEST_RETRY_AFTER_SECONDS, this.#seconds + 1);
    } else if (this.#shed < this.#served * FEWEST_SHED_PER_SERVED) {
      this.#seconds = Math.max(1, this.#seconds - 1);
    }
    this.#windowStartMs = nowMs;
    this.#served = 0;
    this.#shed = 0;
  }
}
