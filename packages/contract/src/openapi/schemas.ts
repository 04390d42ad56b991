import type { ReferenceObject, SchemaObject } from 'openapi3-ts';
import type { SharedComponents } from './components.js';

type Schema = SchemaObject | ReferenceObject;

const isReference = (schema: Schema): schema is ReferenceObject => '$ref' in schema;

/** `schema` with `change` applied to each schema it directly holds. */
function mapNested(schema: SchemaObject, change: (nested: Schema) => Schema): SchemaObject {
  const { properties, items, additionalProperties, allOf, anyOf, oneOf } = schema;
  return {
    ...schema,
    ...(properties && {
      properties: Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, change(property)]),
      ),
    }),
    ...(items && { items: change(items) }),
    ...(typeof additionalProperties === 'object' && {
      additionalProperties: change(additionalProperties),
    }),
    ...(allOf && { allOf: allOf.map(change) }),
    ...(anyOf && { anyOf: anyOf.map(change) }),
    ...(oneOf && { oneOf: oneOf.map(change) }),
  };
}

/**
 * A generated schema as the document states it. The converter renders a union as `oneOf` and
 * adds the documented keywords beside it: a schema whose documentation states its `type` (a
 * number-or-text value is an `integer` on the wire) is that type alone. Outside parameters it
 * drops `default`: openapi-typescript (`defaultNonNullable`, on by default) makes a property
 * with a default required, so a client could not omit it (openapi-typescript issue 1741); the
 * field's description says the value instead.
 */
export function asDocumented(schema: Schema, { keepDefault }: { keepDefault: boolean }): Schema {
  if (isReference(schema)) return schema;
  const {
    oneOf,
    default: defaultValue,
    ...rest
  } = mapNested(schema, (nested) => asDocumented(nested, { keepDefault }));
  return {
    ...rest,
    ...(oneOf && rest.type === undefined && { oneOf }),
    ...(keepDefault && defaultValue !== undefined && { default: defaultValue }),
  };
}

/**
 * `schema` with every titled schema in it, itself included, shared as the component of that
 * name, as `@ts-rest/open-api` shares the schemas of bodies; the name is the title.
 */
function shareTitled(schema: Schema, components: SharedComponents): Schema {
  if (isReference(schema)) return schema;
  const { title, ...untitled } = mapNested(schema, (nested) => shareTitled(nested, components));
  return title === undefined ? untitled : components.share('schemas', title, untitled);
}

/** The schema of a body, request or response, as the document states and shares it. */
export function documentBodySchema(schema: Schema, components: SharedComponents): Schema {
  return shareTitled(asDocumented(schema, { keepDefault: false }), components);
}
