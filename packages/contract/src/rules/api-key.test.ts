import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { apiKeyOf, couldBeApiKey, LONGEST_API_KEY_LENGTH, newApiKey } from './api-key.js';

/** The checksum as the interface states it, with Node's own CRC-32 and base64url. */
function nodeChecksum(random: string): string {
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(random));
  return checksum.toString('base64url');
}

describe('API keys', () => {
  it('carry the CRC-32 of their random part, big-endian, in base64url', () => {
    for (let i = 0; i < 200; i++) {
      const random = randomBytes(32).toString('base64url');
      expect(apiKeyOf(random)).toBe(`ask_${random}${nodeChecksum(random)}`);
    }
  });

  it('are made new from 256 random bits, in the format the check accepts', () => {
    const key = newApiKey();
    expect(key).toMatch(/^ask_[A-Za-z0-9_-]{49}$/);
    expect(key).toHaveLength(LONGEST_API_KEY_LENGTH);
    expect(couldBeApiKey(key)).toBe(true);
    expect(newApiKey()).not.toBe(key);
  });

  it('are told from other tokens by their shape and checksum alone', () => {
    const key = newApiKey();
    const random = key.slice(4, 47);
    expect(couldBeApiKey(`ask_${random}`)).toBe(true); // issued before the checksum
    expect(couldBeApiKey(`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(
      couldBeApiKey(
        `ask_${random.endsWith('A') ? `${random.slice(0, -1)}B` : `${random.slice(0, -1)}A`}${key.slice(47)}`,
      ),
    ).toBe(false);
    expect(couldBeApiKey(`${key}A`)).toBe(false);
    expect(couldBeApiKey(key.slice(0, -1))).toBe(false);
    expect(couldBeApiKey(`ASK_${key.slice(4)}`)).toBe(false);
    expect(couldBeApiKey(`ask_${'+'.repeat(43)}`)).toBe(false);
    expect(couldBeApiKey('')).toBe(false);
  });

  it('are the mock’s demo keys too (a known checksum)', () => {
    const random = 'animal-store-mock-free-key'.padEnd(43, '0');
    expect(apiKeyOf(random)).toBe('ask_animal-store-mock-free-key00000000000000000oIwhkg');
  });
});
