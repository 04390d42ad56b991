import type { HeaderObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts';

interface Shared {
  schemas: SchemaObject;
  responses: ResponseObject;
  headers: HeaderObject;
}

/** A reference to `components[kind][name]`. */
export const ref = (kind: keyof Shared | 'parameters', name: string): ReferenceObject => ({
  $ref: `#/components/${kind}/${name}`,
});

/**
 * The components the operations share, collected while they are documented: a name always
 * stands for one definition, whichever operation defined it first.
 */
export class SharedComponents {
  readonly byKind: { [Kind in keyof Shared]: Record<string, Shared[Kind]> } = {
    schemas: {},
    responses: {},
    headers: {},
  };

  /** Whether `definition` may be shared as `components[kind][name]`: it is new, or the same. */
  fits<Kind extends keyof Shared>(kind: Kind, name: string, definition: Shared[Kind]): boolean {
    const existing = this.byKind[kind][name];
    return existing === undefined || JSON.stringify(existing) === JSON.stringify(definition);
  }

  /** A reference to `definition`, shared as `components[kind][name]`. */
  share<Kind extends keyof Shared>(kind: Kind, name: string, definition: Shared[Kind]) {
    if (!this.fits(kind, name, definition)) {
      throw new Error(`components.${kind}.${name} has two different definitions`);
    }
    const components: Record<string, Shared[Kind]> = this.byKind[kind];
    components[name] = definition;
    return ref(kind, name);
  }
}
