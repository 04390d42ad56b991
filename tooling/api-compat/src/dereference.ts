type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The node a local JSON pointer (`#/components/schemas/Pet`) names in `document`. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  if (!pointer.startsWith('#/')) throw new Error(`${pointer} is not a local reference`);
  let node = document;
  for (const key of pointer.slice(2).split('/')) {
    const unescaped = key.replaceAll('~1', '/').replaceAll('~0', '~');
    node =
      node !== null && typeof node === 'object'
        ? (node as Record<string, unknown>)[unescaped]
        : undefined;
    if (node === undefined) throw new Error(`${pointer} names nothing in the document`);
  }
  return node;
}

const isReference = (node: object): node is { $ref: string } =>
  typeof (node as { $ref?: unknown }).$ref === 'string';

/**
 * `document` with every `$ref` replaced by what it names, so that a change to a shared schema
 * or response is seen, and classified, where each operation uses it. What one component becomes
 * is one object, shared by every place that used it. A cycle is refused: the contract's schemas
 * have none, and an inlined cycle would never end.
 */
export function dereference<T>(document: T): T {
  const done = new Map<object, Json>();
  const underway = new Set<object>();
  const visit = (node: Json): Json => {
    if (node === null || typeof node !== 'object') return node;
    if (isReference(node)) return visit(resolvePointer(document, node.$ref) as Json);
    const known = done.get(node);
    if (known !== undefined) return known;
    if (underway.has(node)) throw new Error('the document has a cycle of $refs');
    underway.add(node);
    const copy: Json = Array.isArray(node)
      ? node.map(visit)
      : Object.fromEntries(Object.entries(node).map(([key, value]) => [key, visit(value)]));
    underway.delete(node);
    done.set(node, copy);
    return copy;
  };
  return visit(document as Json) as T;
}
