import type { NewPet, PetStatus } from './pet-store.js';

export interface Detail {
  path: string;
  message: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; details: Detail[] };

const STATUSES: readonly string[] = ['available', 'pending', 'sold'];
const STATUS_MESSAGE = 'must be one of available, pending, sold';
const DECIMAL_DIGITS = /^(0|[1-9][0-9]*)$/;
const ONLY_WHITESPACE = /^\p{White_Space}*$/u;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const MAX_ID = Number.MAX_SAFE_INTEGER;
const PET_FIELDS = new Set(['name', 'categoryId', 'status']);

const isStatus = (value: unknown): value is PetStatus =>
  typeof value === 'string' && STATUSES.includes(value);

/** A whole number written in canonical decimal, within [min, max]; undefined otherwise. */
export function decimalInRange(text: string, min: number, max: number): number | undefined {
  if (!DECIMAL_DIGITS.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= min && value <= max ? value : undefined;
}

export interface ListQuery {
  limit: number;
  status: PetStatus | undefined;
  cursor: string | undefined;
}

/** listPets' query: `limit` 1..100 (default 20), `status`, `cursor`, each at most once. */
export function checkListQuery(params: URLSearchParams): Checked<ListQuery> {
  const details: Detail[] = [];
  const single = (name: string): string | undefined => {
    const values = params.getAll(name);
    if (values.length > 1) details.push({ path: name, message: 'must be given once' });
    return values.length === 1 ? values[0] : undefined;
  };
  const limitText = single('limit');
  const status = single('status');
  const cursor = single('cursor');
  const limit = limitText === undefined ? 20 : decimalInRange(limitText, 1, 100);
  if (limit === undefined) {
    details.push({ path: 'limit', message: 'must be a whole number from 1 to 100' });
  }
  if (status !== undefined && !isStatus(status)) {
    details.push({ path: 'status', message: STATUS_MESSAGE });
  }
  if (details.length > 0 || limit === undefined) return { ok: false, details };
  return { ok: true, value: { limit, status: status as PetStatus | undefined, cursor } };
}

/** A path id: canonical decimal from 1 to 2^53 - 1, else the path names nothing. */
export const petIdFrom = (segment: string) => decimalInRange(segment, 1, MAX_ID);

export function checkIdempotencyKey(
  value: string | string[] | undefined,
): Checked<string | undefined> {
  if (value === undefined) return { ok: true, value: undefined };
  if (typeof value === 'string' && IDEMPOTENCY_KEY.test(value)) return { ok: true, value };
  return {
    ok: false,
    details: [{ path: 'idempotency-key', message: 'must be 1 to 255 visible ASCII characters' }],
  };
}

function nameProblem(name: unknown): string | undefined {
  if (name === undefined) return 'is required';
  if (typeof name !== 'string') return 'must be a string';
  if (!name.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  let codePoints = 0;
  for (const _ of name) codePoints += 1;
  if (codePoints > 100) return 'must be at most 100 characters';
  if (ONLY_WHITESPACE.test(name)) return 'must contain a character other than whitespace';
  return undefined;
}

function categoryProblem(categoryId: unknown): string | undefined {
  if (categoryId === undefined) return 'is required';
  if (typeof categoryId !== 'number' || !Number.isInteger(categoryId)) {
    return 'must be a whole number';
  }
  if (categoryId < 1 || categoryId > MAX_ID) return `must be a whole number from 1 to ${MAX_ID}`;
  return undefined;
}

/** createPet's body: exactly `name`, `categoryId` and an optional `status`. */
export function checkNewPet(body: unknown): Checked<NewPet> {
  if (body === undefined) {
    return {
      ok: false,
      details: [{ path: 'body', message: 'a JSON object with name and categoryId is required' }],
    };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, details: [{ path: 'body', message: 'must be a JSON object' }] };
  }
  const fields = body as Record<string, unknown>;
  const details: Detail[] = [];
  const name = nameProblem(fields.name);
  if (name) details.push({ path: 'name', message: name });
  const category = categoryProblem(fields.categoryId);
  if (category) details.push({ path: 'categoryId', message: category });
  const status = fields.status ?? 'available';
  const knownStatus = isStatus(status);
  if (!knownStatus) details.push({ path: 'status', message: STATUS_MESSAGE });
  for (const field of Object.keys(fields)) {
    if (!PET_FIELDS.has(field)) details.push({ path: field, message: 'is not a field of NewPet' });
  }
  if (details.length > 0 || !knownStatus) return { ok: false, details };
  return {
    ok: true,
    value: { name: fields.name as string, categoryId: fields.categoryId as number, status },
  };
}
