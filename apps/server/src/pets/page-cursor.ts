import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DatabaseClient } from '@animal-store/db';
import { loadServerSecret } from '../server-secrets.js';

const CURSOR_FORMAT = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{22})$/;

/**
 * Opaque, tamper-evident page cursors: `<last id>.<HMAC>`. The signature covers the exact text
 * of the position, so any altered cursor (an appended character, a flipped bit) is refused
 * rather than read as another position.
 */
export class PageCursorCodec {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  encode(afterId: number): string {
    const position = String(afterId);
    return `${position}.${this.#sign(position)}`;
  }

  /** The id the page starts after, or undefined when the server did not issue this cursor. */
  decode(cursor: string): number | undefined {
    const match = CURSOR_FORMAT.exec(cursor);
    if (!match) return undefined;
    const [, position = '', signature = ''] = match;
    const expected = Buffer.from(this.#sign(position));
    if (!timingSafeEqual(expected, Buffer.from(signature))) return undefined;
    return Number(position);
  }

  #sign(position: string): string {
    // 128 bits of HMAC-SHA256 is ample against forgery and keeps cursors short.
    return createHmac('sha256', this.#key)
      .update(`pets-cursor:v1:${position}`)
      .digest('base64url')
      .slice(0, 22);
  }
}

/** Runs `load` once it succeeds; a failure (say, the database was down) is retried on the next call. */
function untilResolved<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/** The codec of page cursors, under the key the database keeps for every instance. */
export function pageCursors(db: DatabaseClient): () => Promise<PageCursorCodec> {
  return untilResolved(
    async () => new PageCursorCodec(await loadServerSecret(db, 'page-cursor-key')),
  );
}
