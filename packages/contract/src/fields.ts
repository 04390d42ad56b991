import { z } from 'zod';

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
  return z
    .union([z.string(), z.number()], { errorMap: () => ({ message: `${message}, given once` }) })
    .transform((value, ctx) => {
      const parsed =
        typeof value === 'number' || DECIMAL_DIGITS.test(value) ? Number(value) : Number.NaN;
      if (Number.isSafeInteger(parsed) && parsed >= min && parsed <= max) return parsed;
      ctx.addIssue({ code: z.ZodIssueCode.custom, message });
      return z.NEVER;
    });
}

/** Unicode's White_Space property (U+0085 included, U+FEFF not), rather than JavaScript's `\s`. */
const ONLY_WHITESPACE = /^\p{White_Space}*$/u;

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

export const PetNameSchema = z
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
  });
