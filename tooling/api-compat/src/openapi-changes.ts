/**
 * The changes between two OpenAPI documents, each classified as breaking, non-breaking or
 * documentation for a client of the older one. api-smart-diff finds and classifies them; what
 * it cannot see or classifies otherwise than this project promises is decided here, by the
 * rules below.
 */
import { apiCompare, type Diff } from 'api-smart-diff';
import type { ApiChange, Impact } from './api-change.js';
import { dereference, resolvePointer } from './dereference.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked by keys of any shape
type Node = any;
type JsonPath = readonly (string | number)[];

/**
 * Enums whose description tells clients to expect values they do not know, so a new value is
 * not breaking: the Error body's `code` ("Clients should treat a code they do not know as an
 * error of its status"). Every other enum of a response is closed: a client, and the TypeScript
 * union it was given, must meet only the values it was told of.
 */
const OPEN_ENUMS = ['#/components/schemas/Error/properties/code'];

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const LIBRARY_IMPACT: Record<Diff['type'], Impact> = {
  breaking: 'breaking',
  'non-breaking': 'non-breaking',
  deprecated: 'non-breaking',
  annotation: 'documentation',
  // What the library cannot classify is treated as the worst it could be, until a rule here says.
  unclassified: 'breaking',
};

interface Documents {
  readonly before: Node;
  readonly after: Node;
}

/** The operations, with what they share inlined, without the components they shared it through. */
function withoutComponents({ components, ...inlined }: Node): Node {
  return { ...inlined, components: { securitySchemes: components?.securitySchemes ?? {} } };
}

function nodeAt(document: Node, path: JsonPath): Node {
  let node = document;
  for (const key of path) node = node?.[key];
  return node;
}

const inResponse = (path: JsonPath) => path[0] === 'paths' && path[3] === 'responses';
const inRequest = (path: JsonPath) =>
  path[0] === 'paths' && (path[3] === 'parameters' || path[3] === 'requestBody');
const isProperty = (path: JsonPath) => path.at(-2) === 'properties';

/** A response header's `required`: the library reads it as a request's, where less is more. */
const isResponseHeaderRequired = (path: JsonPath) =>
  inResponse(path) && path.at(-1) === 'required' && path.at(-3) === 'headers';
const promisedBefore = (diff: Diff) => diff.action !== 'add' && diff.before === true;
const promisedAfter = (diff: Diff) => diff.action !== 'remove' && diff.after === true;

/** The rules of this project where the library decides otherwise, first match wins. */
const RULES: readonly {
  readonly impact: Impact;
  applies(diff: Diff, documents: Documents, openEnums: ReadonlySet<Node>): boolean;
}[] = [
  // A client reads an optional field when it is sent: removing one breaks it as surely.
  {
    impact: 'breaking',
    applies: (diff) => diff.action === 'remove' && inResponse(diff.path) && isProperty(diff.path),
  },
  // A body that may hold no other field refuses a field it no longer knows.
  {
    impact: 'breaking',
    applies: (diff, { before }) =>
      diff.action === 'remove' &&
      inRequest(diff.path) &&
      isProperty(diff.path) &&
      nodeAt(before, diff.path.slice(0, -2))?.additionalProperties === false,
  },
  // A header a client was promised must keep coming; one promised from now on is only more.
  {
    impact: 'breaking',
    applies: (diff) =>
      isResponseHeaderRequired(diff.path) && promisedBefore(diff) && !promisedAfter(diff),
  },
  {
    impact: 'non-breaking',
    applies: (diff) => isResponseHeaderRequired(diff.path) && promisedAfter(diff),
  },
  {
    impact: 'non-breaking',
    applies: (diff, { before }, openEnums) =>
      diff.action === 'add' &&
      inResponse(diff.path) &&
      diff.path.at(-2) === 'enum' &&
      openEnums.has(nodeAt(before, diff.path.slice(0, -2))),
  },
];

/** `GET /v1/pets (listPets)`, the path alone, or the document as a whole. */
function subjectOf(path: JsonPath, documents: Documents): string {
  if (path[0] !== 'paths' || path.length < 2) return 'The document';
  const url = String(path[1]);
  const method = String(path[2] ?? '');
  if (!HTTP_METHODS.has(method)) return `Path \`${url}\``;
  const operation =
    nodeAt(documents.before, path.slice(0, 3)) ?? nodeAt(documents.after, path.slice(0, 3));
  const name = operation?.operationId ? ` (${operation.operationId})` : '';
  return `\`${method.toUpperCase()} ${url}\`${name}`;
}

interface Place {
  /** Where in the operation, in words: `query parameter \`limit\``, `response 200`… */
  readonly where: string[];
  /** The field of a schema there, e.g. `[].status` for a property of an array's items. */
  readonly field: string;
  /** The keywords past the field, e.g. `['maximum']` or `['enum', 2]`. */
  readonly keywords: JsonPath;
}

/** Where in an operation a path leads. */
function placeOf(path: JsonPath, diff: Diff, before: Node): Place {
  const where: string[] = [];
  const fields: string[] = [];
  let index = 3;
  while (index < path.length) {
    const key = path[index];
    const next = path[index + 1];
    if (key === 'parameters' && next !== undefined) {
      const parameter = nodeAt(before, path.slice(0, index + 2)) ?? diff.after;
      where.push(`${parameter?.in ?? ''} parameter \`${parameter?.name ?? next}\``.trim());
      index += 2;
    } else if (key === 'requestBody') {
      where.push('request body');
      index += 1;
    } else if (key === 'responses' && next !== undefined) {
      where.push(`response ${next}`);
      index += 2;
    } else if (key === 'headers' && next !== undefined) {
      where.push(`header \`${next}\``);
      index += 2;
    } else if (key === 'content' && next !== undefined) {
      if (next !== 'application/json') where.push(`content \`${next}\``);
      index += 2;
    } else if (key === 'schema') {
      index += 1;
    } else if (key === 'properties' && next !== undefined) {
      fields.push(String(next));
      index += 2;
    } else if (key === 'items') {
      fields.push('[]');
      index += 1;
    } else break;
  }
  return { where, field: fields.join('.'), keywords: path.slice(index) };
}

const VERBS = { add: 'added', remove: 'removed', replace: 'changed', rename: 'renamed' } as const;

const shown = (value: unknown) =>
  typeof value === 'object' && value !== null ? 'a new value' : `\`${JSON.stringify(value)}\``;

/** How a keyword changed: `maximum changed from 100 to 50`, `enum value "sold" removed`… */
function keywordChange([keyword, item]: JsonPath, diff: Diff): string {
  const verb = VERBS[diff.action];
  if (keyword === 'enum' && item !== undefined) {
    return `enum value ${shown(diff.action === 'add' ? diff.after : diff.before)} ${verb}`;
  }
  if (keyword === 'description' || keyword === 'summary') return `${keyword} ${verb}`;
  if (diff.action === 'replace') {
    return `${keyword} changed from ${shown(diff.before)} to ${shown(diff.after)}`;
  }
  return `${keyword} ${verb}${diff.action === 'add' ? `: ${shown(diff.after)}` : ''}`;
}

/** The change in a changelog's words, e.g. ``request body: field `status`: enum value "sold" removed``. */
function describe(diff: Diff, documents: Documents): Pick<ApiChange, 'subject' | 'change'> {
  const subject = subjectOf(diff.path, documents);
  const verb = VERBS[diff.action];
  if (diff.path[0] !== 'paths' || diff.path.length < 3) {
    return { subject, change: `\`${diff.path.map(String).join('.')}\` ${verb}` };
  }
  if (diff.path.length === 3) return { subject, change: `operation ${verb}` };
  const { where, field, keywords } = placeOf(diff.path, diff, documents.before);
  const [keyword, item] = keywords;
  if (keyword === 'required' && item !== undefined) {
    const required = [field, diff.action === 'add' ? diff.after : diff.before].filter(Boolean);
    const made = diff.action === 'add' ? 'required' : 'optional';
    return {
      subject,
      change: [...where, `field \`${required.join('.')}\` made ${made}`].join(': '),
    };
  }
  const place = [...where, ...(field ? [`field \`${field}\``] : [])];
  if (keyword === undefined) return { subject, change: `${place.join(': ')} ${verb}` };
  return { subject, change: [...place, keywordChange(keywords, diff)].join(': ') };
}

/**
 * A field removed is no longer required either: saying so as well would say it twice.
 */
function impliedByRemoval(diff: Diff, { after }: Documents): boolean {
  if (diff.action !== 'remove' || diff.path.at(-2) !== 'required') return false;
  const schema = nodeAt(after, diff.path.slice(0, -2));
  return schema?.properties?.[diff.before] === undefined;
}

/** The error codes each response's examples name (`errorResponse` makes one example per code). */
function errorCodes(response: Node): Set<string> {
  const examples = Object.values(response?.content?.['application/json']?.examples ?? {});
  return new Set(
    examples
      .map((example) => (example as Node)?.value?.code)
      .filter((code): code is string => typeof code === 'string'),
  );
}

/**
 * Error codes per operation and status, which the document states only in each error response's
 * examples: a library reads examples as documentation. A code removed is breaking (a client's
 * branch for it, and its TypeScript narrowing, stop meaning anything); a code added is not, the
 * Error body telling clients to treat a code they do not know as an error of its status.
 */
function errorCodeChanges({ before, after }: Documents): ApiChange[] {
  const changes: ApiChange[] = [];
  for (const [url, pathItem] of Object.entries<Node>(before.paths ?? {})) {
    for (const [method, operation] of Object.entries<Node>(pathItem)) {
      if (!HTTP_METHODS.has(method)) continue;
      for (const [status, response] of Object.entries<Node>(operation.responses ?? {})) {
        const later = after.paths?.[url]?.[method]?.responses?.[status];
        if (later === undefined) continue;
        const [was, is] = [errorCodes(response), errorCodes(later)];
        const subject = subjectOf(['paths', url, method], { before, after });
        for (const code of was) {
          if (!is.has(code)) {
            changes.push({
              impact: 'breaking',
              subject,
              change: `response ${status}: error code \`${code}\` removed`,
            });
          }
        }
        for (const code of is) {
          if (!was.has(code)) {
            changes.push({
              impact: 'non-breaking',
              subject,
              change: `response ${status}: error code \`${code}\` added`,
            });
          }
        }
      }
    }
  }
  return changes;
}

/** Examples are read for their error codes alone (above); their wording is not the interface. */
const isExample = (diff: Diff) =>
  diff.path.some(
    (key, index) =>
      (key === 'examples' || key === 'example') && diff.path[index - 1] !== 'properties',
  );

/** Every change from `released` to `current`, each classified for a client of `released`. */
export function openApiChanges(released: object, current: object): ApiChange[] {
  const inlined = dereference(released);
  // Inlined, a component is one object wherever it is used: an open enum is known by identity.
  const openEnums = new Set(OPEN_ENUMS.map((pointer) => resolvePointer(inlined, pointer)));
  const documents: Documents = {
    before: withoutComponents(inlined),
    after: withoutComponents(dereference(current)),
  };
  // The library rewrites the documents it walks: it is given copies.
  const { diffs } = apiCompare(structuredClone(documents.before), structuredClone(documents.after));
  const classified = diffs
    .filter((diff) => !isExample(diff) && !impliedByRemoval(diff, documents))
    .map((diff): ApiChange => {
      const rule = RULES.find((candidate) => candidate.applies(diff, documents, openEnums));
      return { impact: rule?.impact ?? LIBRARY_IMPACT[diff.type], ...describe(diff, documents) };
    });
  return [...classified, ...errorCodeChanges(documents)];
}
