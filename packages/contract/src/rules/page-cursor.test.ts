import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  pageCursorOf,
  pageCursorSignature,
  pageCursorSigningInput,
  readPageCursor,
  signaturesMatch,
} from './page-cursor.js';

const KEY = randomBytes(32);
const nodeSignature = (position: string) =>
  createHmac('sha256', KEY).update(`pets-cursor:v1:${position}`).digest('base64url').slice(0, 22);

describe('page cursors', () => {
  it('are signed with 128 bits of an HMAC-SHA256 over the position’s text, in base64url', () => {
    const mac = createHmac('sha256', KEY).update(pageCursorSigningInput('42')).digest();
    expect(pageCursorSignature(mac)).toBe(nodeSignature('42'));
    expect(pageCursorSignature(mac.toString('base64url'))).toBe(nodeSignature('42'));
    expect(pageCursorOf('42', nodeSignature('42'))).toBe(`42.${nodeSignature('42')}`);
  });

  it('are read back into their parts', () => {
    const signature = nodeSignature('9007199254740991');
    expect(readPageCursor(`9007199254740991.${signature}`)).toEqual({
      position: '9007199254740991',
      afterId: 9007199254740991,
      signature,
    });
  });

  it('of any other shape are refused before their signature is looked at', () => {
    const signature = nodeSignature('7');
    for (const cursor of [
      `07.${signature}`,
      `0.${signature}`,
      `-7.${signature}`,
      `7.${signature}A`,
      `7.${signature.slice(1)}`,
      `7 .${signature}`,
      `12345678901234567.${signature}`,
      `7.${signature.slice(0, -1)}=`,
      '',
    ]) {
      expect(readPageCursor(cursor), cursor).toBeUndefined();
    }
  });

  it('match a signature only when every character does', () => {
    const signature = nodeSignature('7');
    expect(signaturesMatch(signature, signature)).toBe(true);
    expect(
      signaturesMatch(signature, `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`),
    ).toBe(false);
    expect(signaturesMatch(signature, signature.slice(1))).toBe(false);
  });
});
