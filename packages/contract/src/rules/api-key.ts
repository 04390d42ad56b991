/**
 * docs/interface.md, "API keys": a key is `ask_`, 256 random bits in 43 base64url characters,
 * and the CRC-32 of those 43 characters in 6 more (its 4 bytes big-endian, in base64url), as
 * GitHub's tokens carry one: a token that is not a key is told apart without looking it up. Keys
 * issued before the checksum (`ask_` and the random part only) are keys too.
 *
 * The check runs on every request that carries an unfamiliar token, so it allocates nothing: the
 * checksum is computed over the token's characters in place and compared character by character.
 */
import { base64url } from './base64url.js';

export const API_KEY_PREFIX = 'ask_';
const RANDOM_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const RANDOM_BYTES = 32;

/** The length of the longest key: `ask_`, the random part and the checksum. */
export const LONGEST_API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

const CHECKED_KEY = /^ask_[A-Za-z0-9_-]{49}$/;
const UNCHECKED_KEY = /^ask_[A-Za-z0-9_-]{43}$/;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const CRC32_TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc;
});

/** CRC-32 (ISO-HDLC, as zlib's) of the ASCII characters of `text` from `start` to `end`. */
function crc32(text: string, start: number, end: number): number {
  let crc = 0xffffffff;
  for (let index = start; index < end; index++) {
    crc = (CRC32_TABLE[(crc ^ text.charCodeAt(index)) & 0xff] as number) ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * The `place`th base64url digit (0 to 5) of a CRC-32's 4 bytes, big-endian: six bits each, from
 * the top; the sixth holds the last 2 bits followed by four 0s, as base64 pads.
 */
function checksumDigit(crc: number, place: number): number {
  const shift = 26 - 6 * place;
  return shift >= 0 ? (crc >>> shift) & 0x3f : (crc << -shift) & 0x3f;
}

/** The key made of `random` (43 base64url characters) and its checksum. */
export function apiKeyOf(random: string): string {
  const crc = crc32(random, 0, random.length);
  let checksum = '';
  for (let place = 0; place < CHECKSUM_LENGTH; place++) {
    checksum += BASE64URL.charAt(checksumDigit(crc, place));
  }
  return `${API_KEY_PREFIX}${random}${checksum}`;
}

/** A new key: 256 bits from the platform's cryptographic random source (Web Crypto). */
export const newApiKey = (): string =>
  apiKeyOf(base64url(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES))));

/** Whether `token` could be a key: its shape, and its checksum when it carries one. */
export function couldBeApiKey(token: string): boolean {
  if (token.length !== LONGEST_API_KEY_LENGTH) return UNCHECKED_KEY.test(token);
  if (!CHECKED_KEY.test(token)) return false;
  const randomEnd = API_KEY_PREFIX.length + RANDOM_LENGTH;
  const crc = crc32(token, API_KEY_PREFIX.length, randomEnd);
  for (let place = 0; place < CHECKSUM_LENGTH; place++) {
    if (token.charCodeAt(randomEnd + place) !== BASE64URL.charCodeAt(checksumDigit(crc, place))) {
      return false;
    }
  }
  return true;
}
