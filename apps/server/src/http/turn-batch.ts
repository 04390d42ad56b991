/**
 * The batching stage of the pipeline (docs/architecture.md, "One turn of the event loop").
 *
 * Node reads every request that arrived while it was busy in one poll phase of its event loop,
 * each in a callback of its own. Left alone, each request would then run through the whole
 * stack by itself. Instead, the requests of one turn wait for the turn's check phase, and are
 * handed on together from one callback: their next steps then run side by side, stage by stage,
 * so that
 * - admission decides them in one call to the rate-limit store (one Redis round trip per
 *   subject, not per request);
 * - their reads meet in the pet store's DataLoaders, which read the same page, or pets by id,
 *   with one statement for all of them, and their creates go in one insert (SQLite's group
 *   commit then commits them together);
 * - the code of each stage stays hot in the processor's caches while it serves the batch.
 *
 * It relies on one thing: nothing between this stage and the stores awaits a promise that
 * resolves in a later turn for some requests and not others. A stage that must wait (a key not
 * yet known) takes its requests out and brings them back in a later turn's batch.
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

/**
 * Resumes the callers of replies that arrive in one turn together, in that turn's check phase.
 * PostgreSQL answers each statement on its own pooled connection, in its own socket read; passed
 * to the database client (`continueReplies`), this lets the requests whose statements were
 * answered in one turn go on through Prisma and the server side by side, as the requests of one
 * turn do after admission. `list20` on PostgreSQL served a third more requests with it.
 */
export function resumingRepliesTogether(): <T>(reply: Promise<T>) => Promise<T> {
  const resumes = new TurnBatch<() => void>((waiting) => {
    for (const resume of waiting) resume();
  });
  return async (reply) => {
    const value = await reply;
    await new Promise<void>((resume) => resumes.add(resume));
    return value;
  };
}
