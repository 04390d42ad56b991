/**
 * What the add form says about each field, written for shop staff: the contract's NewPetSchema
 * decides what is valid; these words say what to do about it, with the contract's limits.
 */
import {
  MAX_INTEGER_ID,
  type NewPet,
  NewPetSchema,
  PET_NAME_MAX_LENGTH,
} from '@animal-store/contract';

export type Field = 'name' | 'categoryId' | 'status';
export type FieldErrors = Partial<Record<Field, string>>;

export const FIELDS: readonly Field[] = ['name', 'categoryId', 'status'];

export function isField(path: string): path is Field {
  return (FIELDS as readonly string[]).includes(path);
}

const numbers = new Intl.NumberFormat('en');

export const HINTS = {
  name: `1 to ${PET_NAME_MAX_LENGTH} characters.`,
  categoryId: 'A whole number, 1 or more.',
} as const;

const ONLY_WHITESPACE = /^\p{White_Space}*$/u;

function codePoints(text: string): number {
  return [...text].length;
}

function nameProblem(name: string): string {
  if (!name.isWellFormed()) return 'Name has a character that cannot be saved. Type it again.';
  const length = codePoints(name);
  if (length > PET_NAME_MAX_LENGTH) {
    return `Name must be ${PET_NAME_MAX_LENGTH} characters or fewer (this one has ${length}).`;
  }
  if (ONLY_WHITESPACE.test(name)) return 'Enter a name.';
  return 'Check the name.';
}

function categoryProblem(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return 'Enter a category ID.';
  if (/^-\d+$/.test(trimmed)) return 'Category must be 1 or more.';
  if (!/^\d+$/.test(trimmed)) return 'Category must be a whole number, such as 3.';
  const value = Number(trimmed);
  if (value < 1) return 'Category must be 1 or more.';
  if (value > MAX_INTEGER_ID) return `Category must be ${numbers.format(MAX_INTEGER_ID)} or less.`;
  return 'Check the category ID.';
}

/** Digits become a number; anything else goes to the schema as typed, which refuses it. */
function categoryValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

export interface NewPetInput {
  readonly name: string;
  readonly category: string;
  readonly status: string;
}

export type Checked = { ok: true; pet: NewPet } | { ok: false; errors: FieldErrors };

/** Checks the form with the contract's own schema; says what is wrong in the form's words. */
export function checkNewPet(input: NewPetInput): Checked {
  const parsed = NewPetSchema.safeParse({
    name: input.name,
    categoryId: categoryValue(input.category),
    status: input.status,
  });
  if (parsed.success) return { ok: true, pet: parsed.data };
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues) {
    const path = String(issue.path[0] ?? '');
    if (path === 'name') errors.name ??= nameProblem(input.name);
    else if (path === 'categoryId') errors.categoryId ??= categoryProblem(input.category);
    else if (path === 'status') errors.status ??= 'Choose a status.';
  }
  return { ok: false, errors };
}

/** The server's per-field `details` (the contract's messages) in the form's words. */
export function serverFieldProblem(field: Field, message: string): string {
  if (field === 'name') {
    if (/whitespace/.test(message)) return 'Enter a name: it cannot be only spaces.';
    if (/at most/.test(message)) return `Name must be ${PET_NAME_MAX_LENGTH} characters or fewer.`;
    return `Name ${message}.`;
  }
  if (field === 'categoryId') {
    if (/from 1 to|whole number/.test(message))
      return 'Category must be a whole number, 1 or more.';
    if (/required/.test(message)) return 'Enter a category ID.';
    return `Category ID ${message}.`;
  }
  return /one of/.test(message) ? 'Choose a status.' : `Status ${message}.`;
}
