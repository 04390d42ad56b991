/**
 * For tests: the v1 contract as it is, plus a second resource, `widgets`, and one more pets
 * operation, `updatePetStatus`, each written as docs/architecture.md ("Adding an operation")
 * says a newcomer writes one: a route with its schemas, every response it can give, and its
 * `RouteMetadata`. The server must serve all of it, and the client call all of it, with no edit
 * of their own.
 */
import {
  errorResponse,
  MAX_INTEGER_ID,
  PetSchema,
  PetStatusSchema,
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
    colour: z.enum(WIDGET_COLOURS),
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

const INVALID_WIDGET = errorResponse({
  name: 'InvalidWidget',
  description: 'The widget or a query parameter is invalid, or the body is not JSON',
  examples: {
    validation_failed: {
      message: 'The request is invalid: name.',
      details: [{ path: 'name', message: 'must not be empty' }],
    },
    malformed_json: { message: 'The request body could not be read as JSON.' },
    malformed_request: { message: 'The request needs exactly one valid Host header.' },
  },
});

const NO_SUCH_WIDGET = errorResponse({
  name: 'NoSuchWidget',
  description: 'No widget has this id',
  examples: { not_found: { message: 'No widget has id 7.' } },
});

const NO_SUCH_PET = errorResponse({
  name: 'NoSuchPet',
  description: 'No animal has this id',
  examples: { not_found: { message: 'No pet has id 7.' } },
});

const BODY_TOO_LARGE = errorResponse({
  name: 'WidgetBodyTooLarge',
  description: 'The body is larger than 16 KiB',
  examples: { payload_too_large: { message: 'The request body is larger than 16 KiB.' } },
});

const NOT_JSON = errorResponse({
  name: 'WidgetBodyNotJson',
  description: 'A non-empty body was sent without `Content-Type: application/json`',
  examples: {
    unsupported_media_type: {
      message: 'Send the request body as JSON with Content-Type: application/json.',
    },
  },
});

const widgetRoutes = c.router({
  listWidgets: {
    method: 'GET',
    path: '/widgets',
    query: z.object({ colour: z.enum(WIDGET_COLOURS).optional() }).strict(),
    summary: 'List widgets',
    responses: { 200: z.array(WidgetSchema), 400: INVALID_WIDGET },
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

const updatePetStatus = c.router({
  updatePetStatus: {
    method: 'PATCH',
    path: '/pets/:petId',
    pathParams: z.object({ petId: z.coerce.number().int().min(1).max(MAX_INTEGER_ID) }),
    body: z.object({ status: PetStatusSchema }).strict('is not a field of a status change'),
    summary: "Change an animal's status",
    responses: {
      200: PetSchema,
      400: INVALID_WIDGET,
      404: NO_SUCH_PET,
      413: BODY_TOO_LARGE,
      415: NOT_JSON,
    },
    metadata: {
      operationId: 'updatePetStatus',
      stability: 'experimental',
      requestBody: { description: 'The new status' },
      responses: { 200: { description: 'The animal with its new status' } },
    } as const satisfies RouteMetadata,
  },
});

const added = c.router({ pets: updatePetStatus, widgets: widgetRoutes }, V1_ROUTER_OPTIONS);

/** The v1 contract with `widgets` beside `pets`, and `updatePetStatus` among the pets routes. */
export const fixtureContract = c.router({
  pets: { ...petsContract, ...added.pets },
  widgets: added.widgets,
});

export type FixtureContract = typeof fixtureContract;
