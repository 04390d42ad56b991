/**
 * Page cursors as the interface writes them: `<last id>.<signature>`, a 128-bit HMAC-SHA256 in 22
 * base64url characters over that exact text, so that an altered or foreign cursor is refused
 * rather than read as another position. WebCrypto, so that the mock runs in browsers too.
 */
import { base64url } from '../base64url.js';

const CURSOR_FORMAT = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{22})$/;
const SIGNATURE_CHARACTERS = 22;

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
    return `${position}.${await this.#sign(position)}`;
  }

  /** The id the page starts after, or undefined when this mock did not issue the cursor. */
  async decode(cursor: string): Promise<number | undefined> {
    const match = CURSOR_FORMAT.exec(cursor);
    if (!match) return undefined;
    const [, position = '', signature = ''] = match;
    return (await this.#sign(position)) === signature ? Number(position) : undefined;
  }

  async #sign(position: string): Promise<string> {
    const signature = await crypto.subtle.sign(
      'HMAC',
      await this.#key,
      new TextEncoder().encode(`pets-cursor:v1:${position}`),
    );
    return base64url(new Uint8Array(signature)).slice(0, SIGNATURE_CHARACTERS);
  }
}
