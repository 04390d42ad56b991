import { z } from 'zod';
import { documented, type SchemaDocumentation } from './documentation.js';

/** The largest id or category id JSON carries exactly (2^53 - 1). */
export const MAX_INTEGER_ID = Number.MAX_SAFE_INTEGER;
export const PET_NAME_MAX_LENGTH = 100;
export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;

/** Canonical decimal only: a leading zero would make "01" an alias of "1". */
const DECIMAL_DIGITS = /^(0|[1-9][0-9]*)$/;

/**
 * A whole number in [min, max] that arrives either as a JSON number (typed callers)
 * or as the text of a query or path segment. Text must be plain decimal digits, so
 * "1e1", "0x10" or " 5" are refused instead of silently aliasing another value.
 */
export function wholeNumberInRange(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  // Text first: paths and queries always arrive as text, and a branch that fails builds an issue.
  const schema = z
    .union([z.string(), z.number()], { errorMap: () => ({ message: `${message}, given once` }) })
    .transform((value, ctx) => {
      const parsed =
        typeof value === 'number' || DECIMAL_DIGITS.test(value) ? Number(value) : Number.NaN;
      if (Number.isSafeInteger(parsed) && parsed >= min && parsed <= max) return parsed;
      ctx.addIssue({ code: z.ZodIssueCode.custom, message });
      return z.NEVER;
    });
  // Whether it arrives as text or as a number, the value is this integer.
  return documented(schema, { type: 'integer', minimum: min, maximum: max });
}

/** Unicode's White_Space property (U+0085 included, U+FEFF not), rather than JavaScript's `\s`. */
const ONLY_WHITESPACE = /^\p{White_Space}*$/u;

/**
 * The code points of Unicode's White_Space property as the body of a character class. Spelled
 * out rather than `\p{White_Space}` or `\s`: OpenAPI 3.0 patterns are ECMA-262 expressions
 * without the `u` flag, where `\p{…}` is not a property escape, and `\s` also counts U+FEFF,
 * which a name may hold.
 */
const WHITE_SPACE_CLASS =
  '\\t-\\r\\u0020\\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';

/**
 * What `PetNameSchema` checks, in JSON Schema's words: its length counts code points, and the
 * pattern finds one character that is not White_Space. That the text is well-formed (no lone
 * surrogates) no pattern can say portably: the description says it.
 */
export const PET_NAME_KEYWORDS = {
  minLength: 1,
  maxLength: PET_NAME_MAX_LENGTH,
  pattern: `[^${WHITE_SPACE_CLASS}]`,
} as const satisfies SchemaDocumentation;

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

export const PetNameSchema = documented(
  z
    .string({ required_error: 'is required', invalid_type_error: 'must be a string' })
    .superRefine((name, ctx) => {
      if (!name.isWellFormed()) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: 'must be well-formed Unicode (no lone surrogates)',
        });
      } else if (codePointLength(name) > PET_NAME_MAX_LENGTH) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `must be at most ${PET_NAME_MAX_LENGTH} characters`,
        });
      } else if (ONLY_WHITESPACE.test(name)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: 'must contain a character other than whitespace',
        });
      }
    }),
  PET_NAME_KEYWORDS,
);
