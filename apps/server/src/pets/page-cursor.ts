import { createHmac } from 'node:crypto';
import {
  pageCursorOf,
  pageCursorSignature,
  pageCursorSigningInput,
  readPageCursor,
  signaturesMatch,
} from '@animal-store/contract/rules';
import type { DatabaseClient } from '@animal-store/db';
import { loadServerSecret } from '../server-secrets.js';

/**
 * Opaque, tamper-evident page cursors: `<last id>.<HMAC>`. Their shape, what the signature covers
 * and how it is written and compared are the interface's (@animal-store/contract/rules), shared
 * with the mock; the HMAC is node:crypto's, synchronous and native, under the key the database
 * keeps for every instance (the mock signs with Web Crypto, which a browser has, asynchronously).
 */
export class PageCursorCodec {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  encode(afterId: number): string {
    const position = String(afterId);
    return pageCursorOf(position, this.#sign(position));
  }

  /** The id the page starts after, or undefined when the server did not issue this cursor. */
  decode(cursor: string): number | undefined {
    const parts = readPageCursor(cursor);
    if (!parts || !signaturesMatch(this.#sign(parts.position), parts.signature)) return undefined;
    return parts.afterId;
  }

  #sign(position: string): string {
    const hmac = createHmac('sha256', this.#key).update(pageCursorSigningInput(position));
    // As base64url text, encoded natively: every listing with a next page signs a cursor.
    return pageCursorSignature(hmac.digest('base64url'));
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
