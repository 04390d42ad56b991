/**
 * The mock's API keys, each in the interface's format (docs/interface.md, "API keys"): `ask_`, 43
 * base64url characters and the CRC-32 of those, 6 more, made by the rules the server's key command
 * uses too (@animal-store/contract/rules). The demo keys, one per plan and a revoked
 * one, are the same strings in every mock, so that a test or a `.env` file can name them; theirs
 * are not random, since a mock key guards nothing and a readable one says where it came from. A
 * test makes keys of its own (`create`), random as the key command's, and revokes any.
 */
import { MAX_INTEGER_ID, type PlanName } from '@animal-store/contract';
import { apiKeyOf, newApiKey } from '@animal-store/contract/rules';
import { ENTERPRISE_QUOTA, PLAN_QUOTAS, type Plan, type Quota } from './limits.js';

/** The demo key of each plan, and one that was revoked (answered 401 like an unknown key). */
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

/** A key to make: on a plan of the table, or an enterprise key with numbers of its own. */
export type NewMockKey =
  | { readonly plan: Exclude<PlanName, 'enterprise'> }
  | { readonly plan?: 'enterprise'; readonly perMinute: number; readonly perDay: number };

/** The mock's keys: the demo keys, and keys a test makes and revokes. */
export interface MockKeyring extends MockKeys {
  /**
   * A new active key, random, on `key`'s plan or (enterprise) numbers, until `reset()`. Numbers
   * must be whole, from 1 to 2^53 − 1 (a `RangeError` otherwise), as the key command's.
   */
  create(key: NewMockKey): string;
  /**
   * Revokes a key of this mock (a demo key or one it made): it is then answered 401 as an
   * unknown key, until `reset()`. Revoking twice is no error; a key this mock never had is.
   */
  revoke(key: string): void;
}

/** What a key is held to. */
export interface KeyRecord {
  readonly plan: Plan;
  readonly quota: Quota;
}

const RANDOM_PART_LENGTH = 43;

const demoKey = (name: string) =>
  apiKeyOf(`animal-store-mock-${name}-key`.padEnd(RANDOM_PART_LENGTH, '0'));

/** The demo keys: the same strings in every mock. */
export const MOCK_KEYS: MockKeys = {
  free: demoKey('free'),
  pro: demoKey('pro'),
  business: demoKey('business'),
  enterprise: demoKey('enterprise'),
  revoked: demoKey('revoked'),
};

function wholeNumber(name: string, value: unknown): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1) {
    throw new RangeError(`${name} must be a whole number from 1 to ${MAX_INTEGER_ID}`);
  }
  return value as number;
}

/** What a new key is held to; a plan outside the table, or numbers out of range, throw. */
export function recordOf(key: NewMockKey): KeyRecord {
  if (key.plan !== undefined && key.plan !== 'enterprise') {
    const quota = PLAN_QUOTAS[key.plan];
    if (quota === undefined) throw new RangeError(`there is no plan ${JSON.stringify(key.plan)}`);
    if ('perMinute' in key || 'perDay' in key) {
      throw new RangeError('perMinute and perDay are for enterprise keys only');
    }
    return { plan: key.plan, quota };
  }
  const { perMinute, perDay } = key as { perMinute?: unknown; perDay?: unknown };
  return {
    plan: 'enterprise',
    quota: {
      perMinute: wholeNumber('perMinute', perMinute),
      perDay: wholeNumber('perDay', perDay),
    },
  };
}

const FIRST_KEYS: ReadonlyArray<readonly [string, KeyRecord]> = [
  [MOCK_KEYS.free, { plan: 'free', quota: PLAN_QUOTAS.free }],
  [MOCK_KEYS.pro, { plan: 'pro', quota: PLAN_QUOTAS.pro }],
  [MOCK_KEYS.business, { plan: 'business', quota: PLAN_QUOTAS.business }],
  [MOCK_KEYS.enterprise, { plan: 'enterprise', quota: ENTERPRISE_QUOTA }],
];

/** The keys one mock knows, and which are revoked. */
export class Keyring {
  #active = new Map(FIRST_KEYS);
  #revoked = new Set([MOCK_KEYS.revoked]);

  /** What an active key is held to; undefined for one revoked or unknown. */
  find(key: string): KeyRecord | undefined {
    return this.#active.get(key);
  }

  create(key: NewMockKey): string {
    const record = recordOf(key);
    const made = newApiKey();
    this.#active.set(made, record);
    return made;
  }

  revoke(key: string): void {
    if (this.#revoked.has(key)) return;
    if (!this.#active.delete(key)) throw new Error(`${key} is not a key of this mock`);
    this.#revoked.add(key);
  }

  /** The demo keys alone, the revoked one revoked. */
  reset(): void {
    this.#active = new Map(FIRST_KEYS);
    this.#revoked = new Set([MOCK_KEYS.revoked]);
  }
}
