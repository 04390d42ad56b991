import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const CURSOR_FORMAT = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{22})$/;

/** The server's cursor format: `<last id>.<128 bits of HMAC-SHA256 of that id>`. */
export function createPageCursors(key: Buffer = randomBytes(32)) {
  const sign = (position: string) =>
    createHmac('sha256', key).update(`pets-cursor:v1:${position}`).digest('base64url').slice(0, 22);

  return {
    encode: (afterId: number) => `${afterId}.${sign(String(afterId))}`,
    /** The id the page starts after, or undefined for a cursor this process did not issue. */
    decode(cursor: string): number | undefined {
      const match = CURSOR_FORMAT.exec(cursor);
      if (!match) return undefined;
      const [, position = '', signature = ''] = match;
      const expected = Buffer.from(sign(position));
      return timingSafeEqual(expected, Buffer.from(signature)) ? Number(position) : undefined;
    },
  };
}

export type PageCursors = ReturnType<typeof createPageCursors>;
