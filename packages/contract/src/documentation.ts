import type { z } from 'zod';

/*
 * What the contract says of itself in its OpenAPI document. The zod schemas and the routes
 * carry it, next to what it describes; `@animal-store/contract/openapi` reads it. It is plain
 * data, so this entry loads none of the OpenAPI packages: only the builder's entry does.
 */

/**
 * JSON Schema keywords for what a zod schema cannot say, or says in a form the converter cannot
 * read: an int64 `format`, the `pattern` and code-point bounds a refinement checks, an `example`.
 * A `type` states what a value is on the wire, whatever union parses it: a number-or-text query
 * value is an `integer`. A `title` makes the schema a component of that name, shared by every
 * operation that uses it (how `@ts-rest/open-api` shares schemas).
 */
export interface SchemaDocumentation {
  readonly title?: string;
  readonly description?: string;
  readonly type?: 'integer' | 'number' | 'string' | 'boolean';
  readonly format?: 'int64' | 'uri-reference';
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly string[];
  readonly example?: unknown;
}

/**
 * Where `@anatine/zod-openapi`, the converter under `@ts-rest/open-api`, reads a schema's extra
 * keywords (what its `extendApi` sets). Written here rather than through `extendApi`, so that the
 * contract does not load the converter.
 */
interface ConverterKeywords {
  metaOpenApi?: Omit<SchemaDocumentation, 'description'>;
}

/**
 * A copy of `schema` that the OpenAPI document describes with `documentation` (a shared schema
 * keeps its own). The description is zod's own (`describe`); the other keywords are added to
 * what the converter derives from the schema. Apply it last: zod methods that return a changed
 * copy (`describe`, `min`, `strict`…) leave the keywords behind; wrappers (`optional`,
 * `default`) keep them.
 */
export function documented<Schema extends z.ZodTypeAny>(
  schema: Schema,
  { description, ...keywords }: SchemaDocumentation,
): Schema {
  // A copy as zod's own `describe` makes one: the same definition in a new instance.
  const copy = new (schema.constructor as new (definition: z.ZodTypeDef) => Schema)({
    ...schema._def,
    ...(description !== undefined && { description }),
  });
  const inherited = (schema as ConverterKeywords).metaOpenApi;
  return Object.assign(copy, {
    metaOpenApi: { ...inherited, ...keywords },
  } satisfies ConverterKeywords);
}

interface HeaderFacts {
  readonly description: string;
  readonly schema: SchemaDocumentation;
  readonly example?: string | number;
}

/**
 * A header sent with every response that documents it: the document shares it as
 * `components.headers[component]`.
 */
export interface RequiredHeaderDocumentation extends HeaderFacts {
  readonly required: true;
  readonly component: string;
}

/**
 * A header sent with some of the responses that document it: written out in place, because
 * openapi-typescript reads a referenced header as required.
 */
export interface OptionalHeaderDocumentation extends HeaderFacts {
  readonly required?: false;
  readonly component?: never;
}

/** A response header as the OpenAPI document describes it. */
export type HeaderDocumentation = RequiredHeaderDocumentation | OptionalHeaderDocumentation;

/** Response headers by their name on the wire, e.g. `Location`. */
export type HeadersDocumentation = Readonly<Record<string, HeaderDocumentation>>;
