/**
 * Requests waiting for room, in one line per subject (the credential a request carries, as sent,
 * else its address), the lines served in turn: a subject sending most of the traffic has the
 * longest line, so its requests wait longest, and it cannot starve the others.
 */
export class SubjectLines<Item> {
  /** In turn order: a line whose turn has passed goes to the back. */
  readonly #lines = new Map<string, Item[]>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(subject: string, item: Item): void {
    const line = this.#lines.get(subject);
    if (line === undefined) this.#lines.set(subject, [item]);
    else line.push(item);
    this.#size += 1;
  }

  /** The first of the line whose turn it is; that line's turn passes. */
  takeNext(): Item | undefined {
    const first = this.#lines.entries().next();
    if (first.done) return undefined;
    const [subject, line] = first.value;
    const next = line.shift() as Item;
    this.#lines.delete(subject);
    if (line.length > 0) this.#lines.set(subject, line);
    this.#size -= 1;
    return next;
  }

  /** Takes, from the front of every line, the items `isDone` says are done waiting, in order. */
  *takeDone(isDone: (item: Item) => boolean): Generator<Item> {
    for (const [subject, line] of this.#lines) {
      while (line.length > 0 && isDone(line[0] as Item)) {
        this.#size -= 1;
        yield line.shift() as Item;
      }
      if (line.length === 0) this.#lines.delete(subject);
    }
  }
}
