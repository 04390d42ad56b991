/**
 * The mock's API keys: one per plan and a revoked one, the same strings in every mock, so that a
 * test or a `.env` file can name them. Each is in the interface's format (docs/interface.md, "API
 * keys"): `ask_`, 43 base64url characters and the CRC-32 of those, 6 more. Theirs are not random:
 * a mock key guards nothing, and a readable one says where it came from.
 */
import { ENTERPRISE_QUOTA, PLAN_QUOTAS, type Plan, type Quota } from './limits.js';

/** The key of each plan, and one that was revoked (answered 401 like an unknown key). */
export interface MockKeys {
  /** On the Free plan: 60 requests per minute, 1,000 per day. */
  readonly free: string;
  /** On the Pro plan: 300 per minute, 10,000 per day. */
  readonly pro: string;
  /** On the Business plan: 1,000 per minute, 100,000 per day. */
  readonly business: string;
  /** On its own numbers: 120 requests per minute, 50,000 per day. */
  readonly enterprise: string;
  /** A key that was revoked: answered 401 with `error="invalid_token"`, as an unknown one. */
  readonly revoked: string;
}

export interface KeyRecord {
  readonly plan: Plan;
  readonly quota: Quota;
}

const RANDOM_PART_LENGTH = 43;

const CRC32_TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc >>> 0;
});

/** CRC-32 (ISO-HDLC, as zlib's) of ASCII text. */
function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let index = 0; index < text.length; index++) {
    crc = (CRC32_TABLE[(crc ^ text.charCodeAt(index)) & 0xff] as number) ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The 4 bytes of `value`, big-endian, in unpadded base64url: 6 characters. */
function base64urlOfUint32(value: number): string {
  const bits = value * 16; // 32 bits and 4 zero bits of padding: 36 bits, 6 characters.
  let text = '';
  for (let shift = 30; shift >= 0; shift -= 6) {
    text += BASE64URL[Math.floor(bits / 2 ** shift) % 64];
  }
  return text;
}

function keyNamed(name: string): string {
  const random = `animal-store-mock-${name}-key`.padEnd(RANDOM_PART_LENGTH, '0');
  return `ask_${random}${base64urlOfUint32(crc32(random))}`;
}

export const MOCK_KEYS: MockKeys = {
  free: keyNamed('free'),
  pro: keyNamed('pro'),
  business: keyNamed('business'),
  enterprise: keyNamed('enterprise'),
  revoked: keyNamed('revoked'),
};

/** The active keys and what each is held to; the revoked one is not among them. */
export const ACTIVE_KEYS: ReadonlyMap<string, KeyRecord> = new Map([
  [MOCK_KEYS.free, { plan: 'free', quota: PLAN_QUOTAS.free }],
  [MOCK_KEYS.pro, { plan: 'pro', quota: PLAN_QUOTAS.pro }],
  [MOCK_KEYS.business, { plan: 'business', quota: PLAN_QUOTAS.business }],
  [MOCK_KEYS.enterprise, { plan: 'enterprise', quota: ENTERPRISE_QUOTA }],
]);
