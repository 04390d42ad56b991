/**
 * The words an example uses for what is not known when it is written: a value an earlier step's
 * answer gave (`ref`), text made of such values (`template`), a value new to each run (`unique`),
 * and what an answer's value must satisfy when no one value is right (`absent`, `satisfies`,
 * `arrayOf`, `nextPageLink`). Each says what it stands for in words, for the documents and for a
 * failure's message.
 */
import type { z } from 'zod';

/** What a run knows when it reads a reference: the answers so far, by step name. */
export interface Scope {
  /** The value at `path` (`created.body.id`, `first.next.cursor`); undefined when there is none. */
  lookup(path: string): unknown;
  /** The value `unique(label)` stands for in this run: the same for one label throughout. */
  unique(label: string): string;
}

/** The value at a path of the run's answers: `created.body.id`, `self.headers.location`. */
export class Reference {
  constructor(readonly path: string) {}
  get description(): string {
    return `{${this.path}}`;
  }
}

/** Text with `{path}` holes, each filled with the value a reference of that path reads. */
export class Template {
  constructor(readonly text: string) {}
  get description(): string {
    return this.text;
  }
  fill(scope: Scope): string {
    return this.text.replace(/\{([^}]+)\}/g, (_, path: string) => String(scope.lookup(path)));
  }
}

/** A value no earlier run sent: an `Idempotency-Key` a deployment has never seen, say. */
export class UniqueValue {
  constructor(readonly label: string) {}
  get description(): string {
    return `{a new ${this.label}}`;
  }
}

/** What an answer's value must be when no one value is right; `check` names each problem. */
export abstract class Matcher {
  abstract readonly description: string;
  abstract check(actual: unknown, scope: Scope): string[];
}

export const ref = (path: string) => new Reference(path);
export const template = (text: string) => new Template(text);
export const unique = (label: string) => new UniqueValue(label);

/** A header the answer must not carry. */
export const absent: Matcher = new (class extends Matcher {
  readonly description = '(absent)';
  check(actual: unknown): string[] {
    return actual === undefined ? [] : [`is ${JSON.stringify(actual)}, expected none`];
  }
})();

/** Any value `schema` accepts, described in words: `satisfies(PetSchema.shape.id, 'a new id')`. */
export function satisfies(schema: z.ZodTypeAny, description: string): Matcher {
  return new (class extends Matcher {
    readonly description = `(${description})`;
    check(actual: unknown): string[] {
      const parsed = schema.safeParse(actual);
      return parsed.success ? [] : [`is ${JSON.stringify(actual)}, not ${description}`];
    }
  })();
}

/** What `arrayOf` asks of a list beyond each item's schema. */
export interface ListRule {
  /** At most this many items. */
  readonly atMost?: number;
  /** The items in ascending order of this field. */
  readonly ascendingBy?: string;
  /** Every item's fields have these values (its other fields are free). */
  readonly every?: Readonly<Record<string, unknown>>;
  /** Every item's `ascendingBy` field is greater than this value. */
  readonly after?: Reference;
}

const fieldOf = (item: unknown, field: string) => (item as Record<string, unknown>)[field];

/** A JSON array whose items `item` accepts, as `rule` says. */
export function arrayOf(item: z.ZodTypeAny, rule: ListRule = {}): Matcher {
  const words = [
    rule.atMost !== undefined && `at most ${rule.atMost}`,
    rule.ascendingBy && `in ascending ${rule.ascendingBy} order`,
    rule.every && `each with ${JSON.stringify(rule.every)}`,
    rule.after && `each ${rule.ascendingBy ?? 'item'} after ${rule.after.description}`,
  ].filter(Boolean);
  return new (class extends Matcher {
    readonly description = `(a list${words.length > 0 ? `, ${words.join(', ')}` : ''})`;
    check(actual: unknown, scope: Scope): string[] {
      if (!Array.isArray(actual)) return [`is ${JSON.stringify(actual)}, not a list`];
      const problems = actual.flatMap((value, index) => {
        const parsed = item.safeParse(value);
        const own = parsed.success ? [] : [`[${index}] is not as the contract says`];
        const fields = Object.entries(rule.every ?? {})
          .filter(([field, wanted]) => fieldOf(value, field) !== wanted)
          .map(([field, wanted]) => `[${index}].${field} is not ${JSON.stringify(wanted)}`);
        return [...own, ...fields];
      });
      if (rule.atMost !== undefined && actual.length > rule.atMost) {
        problems.push(`has ${actual.length} items, more than ${rule.atMost}`);
      }
      const field = rule.ascendingBy;
      if (field !== undefined) {
        const values = actual.map((value) => fieldOf(value, field) as number);
        if (values.some((value, index) => index > 0 && !(value > (values[index - 1] as number)))) {
          problems.push(`is not in ascending ${field} order`);
        }
        const floor = rule.after && (scope.lookup(rule.after.path) as number);
        if (floor !== undefined && values.some((value) => !(value > floor))) {
          problems.push(`holds a ${field} not after ${floor}`);
        }
      }
      return problems;
    }
  })();
}

/**
 * A `Link` header naming the next page (RFC 8288 `rel="next"`): an absolute URL whose query has
 * exactly `query`'s parameters and an opaque, non-empty `cursor`.
 */
export function nextPageLink(query: Readonly<Record<string, string>>): Matcher {
  return new (class extends Matcher {
    readonly description =
      `<(absolute URL)?${new URLSearchParams({ ...query, cursor: '(cursor)' })}>; rel="next"`;
    check(actual: unknown): string[] {
      const url = typeof actual === 'string' ? nextPageUrl(actual) : undefined;
      if (url === undefined) return [`is ${JSON.stringify(actual)}, not a rel="next" link`];
      const { cursor, ...rest } = Object.fromEntries(url.searchParams);
      const problems = cursor ? [] : ['has no cursor'];
      const expected = JSON.stringify(Object.entries(query).sort());
      const sent = JSON.stringify(Object.entries(rest).sort());
      if (expected !== sent) problems.push(`keeps the query ${sent}, not ${expected}`);
      return problems;
    }
  })();
}

/** The URL of a `Link` header's `rel="next"` entry, when it has one with an absolute URL. */
export function nextPageUrl(link: string): URL | undefined {
  const target = /<([^>]*)>\s*;\s*rel="next"/.exec(link)?.[1];
  if (target === undefined || !URL.canParse(target)) return undefined;
  return new URL(target);
}
