/**
 * docs/interface.md, "Paging": a page cursor is `<last id>.<signature>`, the signature 128 bits
 * of an HMAC-SHA256 in 22 base64url characters over the exact text of the position, so that an
 * altered or foreign cursor is refused rather than read as another position.
 *
 * The HMAC itself is each implementation's, under a key of its own: the server's is node:crypto's
 * (synchronous, native), and a browser has only Web Crypto's, which is asynchronous. What the
 * signature covers, its length and encoding, the cursor's shape and how signatures are compared
 * are stated here once.
 */
import { base64url } from './base64url.js';

const PAGE_CURSOR = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{22})$/;
const SIGNATURE_LENGTH = 22;

/** A cursor's parts: the position as written, the id it stands for, and its signature. */
export interface PageCursorParts {
  position: string;
  afterId: number;
  signature: string;
}

/** The text an HMAC signs for the position `position` (the last id of a page, as written). */
export const pageCursorSigningInput = (position: string): string => `pets-cursor:v1:${position}`;

/**
 * The signature a cursor carries, from the HMAC-SHA256 of its signing input: 128 bits of it, in
 * base64url. `mac` is the HMAC's bytes (Web Crypto's), or their unpadded base64url as node:crypto's
 * `digest('base64url')` writes them natively, which a server encoding a cursor per listing takes.
 */
export const pageCursorSignature = (mac: Uint8Array | string): string =>
  (typeof mac === 'string' ? mac : base64url(mac)).slice(0, SIGNATURE_LENGTH);

/** The cursor of `position`, signed with `signature`. */
export const pageCursorOf = (position: string, signature: string): string =>
  `${position}.${signature}`;

/** The parts of `cursor`, or undefined when it is not a cursor's shape (its signature unchecked). */
export function readPageCursor(cursor: string): PageCursorParts | undefined {
  const match = PAGE_CURSOR.exec(cursor);
  if (!match) return undefined;
  const [, position = '', signature = ''] = match;
  return { position, afterId: Number(position), signature };
}

/**
 * Whether `signature` is `expected`, in a time that does not depend on where they differ, so
 * that a forger learns nothing from how fast a guess is refused.
 */
export function signaturesMatch(expected: string, signature: string): boolean {
  if (expected.length !== signature.length) return false;
  let difference = 0;
  for (let index = 0; index < expected.length; index++) {
    difference |= expected.charCodeAt(index) ^ signature.charCodeAt(index);
  }
  return difference === 0;
}
