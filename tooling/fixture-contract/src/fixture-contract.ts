/**
 * For tests: the v1 contract as it is, plus a second resource, `widgets`, and one more pets
 * operation, `renamePet`, each written as docs/architecture.md ("Adding an operation") says a
 * newcomer writes one: a route with its schemas, every response it can give, its `RouteMetadata`
 * and its examples (`fixture-examples.ts`). The server and the mock must serve all of it, and the
 * client call all of it, with no edit of their own.
 */
import {
  ERROR_MESSAGES,
  errorResponse,
  MAX_INTEGER_ID,
  NewPetSchema,
  PetSchema,
  petsContract,
  type RouteMetadata,
  V1_ROUTER_OPTIONS,
} from '@animal-store/contract';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';

const c = initContract();

export const WIDGET_COLOURS = ['red', 'green', 'blue'] as const;

const WidgetValuesSchema = z
  .object({
    name: z.string().min(1, 'must not be empty').max(40, 'must be at most 40 characters'),
    colour: z.enum(WIDGET_COLOURS, { errorMap: () => ({ message: 'must be red, green or blue' }) }),
  })
  .strict('is not a field of a widget');

export const WidgetSchema = WidgetValuesSchema.extend({
  id: z.number().int().min(1).max(MAX_INTEGER_ID),
}).strip();

export type Widget = z.infer<typeof WidgetSchema>;
export type WidgetValues = z.infer<typeof WidgetValuesSchema>;

const WidgetPathSchema = z.object({
  widgetId: z.coerce.number().int().min(1).max(MAX_INTEGER_ID),
});

const MALFORMED_REQUEST = { message: ERROR_MESSAGES.fragmentInTarget.message };

const INVALID_WIDGET_QUERY = errorResponse({
  name: 'InvalidWidgetQuery',
  description: 'A query parameter is invalid',
  examples: {
    validation_failed: {
      message: ERROR_MESSAGES.invalidFields(['colour']).message,
      details: [{ path: 'colour', message: 'must be red, green or blue' }],
    },
    malformed_request: MALFORMED_REQUEST,
  },
});

const INVALID_WIDGET = errorResponse({
  name: 'InvalidWidget',
  description: 'The body is invalid, or not JSON',
  examples: {
    validation_failed: {
      message: ERROR_MESSAGES.invalidFields(['name']).message,
      details: [{ path: 'name', message: 'must not be empty' }],
    },
    malformed_json: { message: ERROR_MESSAGES.bodyNotJson.message },
    malformed_request: MALFORMED_REQUEST,
  },
});

const NO_SUCH_WIDGET = errorResponse({
  name: 'NoSuchWidget',
  description: 'No widget has this id',
  examples: { not_found: { message: ERROR_MESSAGES.noSuchResource('widgetId', 7).message } },
});

const NO_SUCH_PET = errorResponse({
  name: 'NoSuchPet',
  description: 'No animal has this id',
  examples: { not_found: { message: ERROR_MESSAGES.noSuchResource('petId', 7).message } },
});

const BODY_TOO_LARGE = errorResponse({
  name: 'WidgetBodyTooLarge',
  description: 'The body is larger than 16 KiB',
  examples: { payload_too_large: { message: ERROR_MESSAGES.bodyTooLarge.message } },
});

const NOT_JSON = errorResponse({
  name: 'WidgetBodyNotJson',
  description: 'A non-empty body was sent without `Content-Type: application/json`',
  examples: { unsupported_media_type: { message: ERROR_MESSAGES.bodyNotDeclaredJson.message } },
});

const widgetRoutes = c.router({
  listWidgets: {
    method: 'GET',
    path: '/widgets',
    query: z
      .object({
        colour: z
          .enum(WIDGET_COLOURS, { errorMap: () => ({ message: 'must be red, green or blue' }) })
          .optional(),
      })
      .strict(),
    summary: 'List widgets',
    responses: { 200: z.array(WidgetSchema), 400: INVALID_WIDGET_QUERY },
    metadata: {
      operationId: 'listWidgets',
      stability: 'beta',
      responses: { 200: { description: 'Every widget, of one colour or all' } },
    } as const satisfies RouteMetadata,
  },
  createWidget: {
    method: 'POST',
    path: '/widgets',
    headers: z.object({
      'idempotency-key': z.string().min(1).describe('The same key twice creates one widget'),
    }),
    body: WidgetValuesSchema,
    summary: 'Add a widget',
    responses: { 201: WidgetSchema, 400: INVALID_WIDGET, 413: BODY_TOO_LARGE, 415: NOT_JSON },
    metadata: {
      operationId: 'createWidget',
      stability: 'beta',
      requestBody: { description: 'The widget to add' },
      responses: {
        201: {
          description: 'The created widget',
          headers: {
            'Widget-Location': {
              required: true,
              component: 'WidgetLocation',
              description: 'The path of the created widget',
              schema: { type: 'string' },
            },
          },
        },
      },
    } as const satisfies RouteMetadata,
  },
  getWidget: {
    method: 'GET',
    path: '/widgets/:widgetId',
    pathParams: WidgetPathSchema,
    summary: 'Get a widget (deprecated)',
    deprecated: true,
    responses: { 200: WidgetSchema, 404: NO_SUCH_WIDGET },
    metadata: {
      operationId: 'getWidget',
      stability: 'deprecated',
      deprecation: {
        deprecatedAt: new Date('2026-01-01T00:00:00Z'),
        sunsetAt: new Date('2031-01-01T00:00:00Z'),
        successor: '/v1/widgets',
      },
      responses: { 200: { description: 'The widget' } },
    } as const satisfies RouteMetadata,
  },
  updateWidget: {
    method: 'PATCH',
    path: '/widgets/:widgetId',
    pathParams: WidgetPathSchema,
    body: WidgetValuesSchema.partial(),
    summary: 'Change a widget',
    responses: {
      200: WidgetSchema,
      400: INVALID_WIDGET,
      404: NO_SUCH_WIDGET,
      413: BODY_TOO_LARGE,
      415: NOT_JSON,
    },
    metadata: {
      operationId: 'updateWidget',
      stability: 'beta',
      requestBody: { description: 'The fields to change' },
      responses: { 200: { description: 'The widget as changed' } },
    } as const satisfies RouteMetadata,
  },
  deleteWidget: {
    method: 'DELETE',
    path: '/widgets/:widgetId',
    pathParams: WidgetPathSchema,
    body: c.noBody(),
    summary: 'Remove a widget',
    responses: { 204: c.noBody(), 404: NO_SUCH_WIDGET },
    metadata: {
      operationId: 'deleteWidget',
      stability: 'beta',
      responses: { 204: { description: 'The widget is gone' } },
    } as const satisfies RouteMetadata,
  },
});

const renamePet = c.router({
  renamePet: {
    method: 'PUT',
    path: '/pets/:petId/name',
    pathParams: z.object({ petId: z.coerce.number().int().min(1).max(MAX_INTEGER_ID) }),
    body: NewPetSchema.pick({ name: true }).strict('is not a field of a new name'),
    summary: 'Rename an animal',
    responses: {
      200: PetSchema,
      400: INVALID_WIDGET,
      404: NO_SUCH_PET,
      413: BODY_TOO_LARGE,
      415: NOT_JSON,
    },
    metadata: {
      operationId: 'renamePet',
      stability: 'experimental',
      requestBody: { description: 'The new name' },
      responses: { 200: { description: 'The animal with its new name' } },
    } as const satisfies RouteMetadata,
  },
});

/**
 * `existing`'s routes and `added`'s: an added route of a name `existing` already has is refused,
 * where a spread would silently put the fixture's in place of the contract's own.
 */
function alongside<Existing extends object, Added extends object>(
  existing: Existing,
  added: Added,
): Existing & Added {
  const clashes = Object.keys(added).filter((name) => name in existing);
  if (clashes.length > 0) {
    throw new Error(
      `The fixture contract's ${clashes.join(', ')} would replace the contract's own`,
    );
  }
  return { ...existing, ...added };
}

const added = c.router({ pets: renamePet, widgets: widgetRoutes }, V1_ROUTER_OPTIONS);

/** The v1 contract with `widgets` beside `pets`, and `renamePet` among the pets routes. */
export const fixtureContract = c.router({
  pets: alongside(petsContract, added.pets),
  widgets: added.widgets,
});

export type FixtureContract = typeof fixtureContract;
