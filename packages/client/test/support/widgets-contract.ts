/**
 * A contract built as the Animal Store's is, with a second resource beside `pets`: `widgets`,
 * which no server of this repository serves. The client must offer all of it without an edit.
 */
import { contract, ErrorBodySchema } from '@animal-store/contract';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';

const c = initContract();

export const WidgetSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  colour: z.enum(['red', 'green', 'blue']),
});

export type Widget = z.infer<typeof WidgetSchema>;

export const NewWidgetSchema = WidgetSchema.omit({ id: true });

const WidgetIdSchema = z.object({ widgetId: z.coerce.number().int().min(1) });

const widgetsContract = c.router(
  {
    listWidgets: {
      method: 'GET',
      path: '/widgets',
      query: z.object({ colour: WidgetSchema.shape.colour.optional() }),
      responses: { 200: z.array(WidgetSchema) },
    },
    createWidget: {
      method: 'POST',
      path: '/widgets',
      // Required by the contract; the client makes one when the caller gives none.
      headers: z.object({ 'idempotency-key': z.string() }),
      body: NewWidgetSchema,
      responses: { 201: WidgetSchema, 409: ErrorBodySchema },
    },
    updateWidget: {
      method: 'PATCH',
      path: '/widgets/:widgetId',
      pathParams: WidgetIdSchema,
      body: NewWidgetSchema.partial(),
      responses: { 200: WidgetSchema, 404: ErrorBodySchema },
    },
    deleteWidget: {
      method: 'DELETE',
      path: '/widgets/:widgetId',
      pathParams: WidgetIdSchema,
      body: c.noBody(),
      responses: { 204: c.noBody(), 404: ErrorBodySchema },
    },
  },
  { pathPrefix: '/v1', strictStatusCodes: true },
);

/** The Animal Store's contract with `widgets` added to its root router. */
export const petsAndWidgetsContract = c.router({ pets: contract.pets, widgets: widgetsContract });
