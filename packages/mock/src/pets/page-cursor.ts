/**
 * Page cursors as the interface writes them: their shape, what the signature covers and how it
 * is written and compared are the interface's (@animal-store/contract/rules), the server's too.
 * The HMAC-SHA256 is Web Crypto's, so that the mock runs in browsers: it is asynchronous there,
 * where the server's node:crypto one is not, so the signing step alone is the mock's own.
 */
import {
  pageCursorOf,
  pageCursorSignature,
  pageCursorSigningInput,
  readPageCursor,
  signaturesMatch,
} from '@animal-store/contract/rules';

export class PageCursors {
  readonly #key: Promise<CryptoKey>;

  /** A key of the mock's own, new for each mock: its cursors are valid in it alone. */
  constructor() {
    this.#key = crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]) as Promise<CryptoKey>;
  }

  async encode(afterId: number): Promise<string> {
    const position = String(afterId);
    return pageCursorOf(position, await this.#sign(position));
  }

  /** The id the page starts after, or undefined when this mock did not issue the cursor. */
  async decode(cursor: string): Promise<number | undefined> {
    const parts = readPageCursor(cursor);
    if (parts === undefined) return undefined;
    return signaturesMatch(await this.#sign(parts.position), parts.signature)
      ? parts.afterId
      : undefined;
  }

  async #sign(position: string): Promise<string> {
    const input = new TextEncoder().encode(pageCursorSigningInput(position));
    const mac = await crypto.subtle.sign('HMAC', await this.#key, input);
    return pageCursorSignature(new Uint8Array(mac));
  }
}
