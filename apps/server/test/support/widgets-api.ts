/**
 * For the served-contract test: the handlers of the fixture contract
 * (`@animal-store/fixture-contract`), written as a newcomer writes them. The pets resource has
 * the server's own handlers and one more, `renamePet`, over one more store method; the
 * widgets resource has handlers of its own over a store in memory.
 */
import { ERROR_MESSAGES, errorBodyOf, type Pet } from '@animal-store/contract';
import type { DatabaseClient } from '@animal-store/db';
import { fixtureContract } from '@animal-store/fixture-contract';
import type { WidgetStore } from '@animal-store/fixture-contract/widget-store';
import { initServer } from '@ts-rest/express';
import { batchedStore } from '../../src/batching/batched-store.js';
import { PET_STORE_SHARING } from '../../src/batching/pet-store.js';
import { defineApi } from '../../src/http/served-api.js';
import { pageCursors } from '../../src/pets/page-cursor.js';
import { createPetStore, PET_QUERY_SUMMARIES } from '../../src/pets/pet-store.js';
import { createPetsRouter, unissuedCursorReporter } from '../../src/pets/pets.router.js';

/** The pet store with one more query. */
function petStoreWithRenames(db: DatabaseClient) {
  return {
    ...createPetStore(db),
    /** Sets a pet's name; Prisma's "record not found" when no pet has the id. */
    async renamePet(id: number, name: string): Promise<void> {
      await db.pet.update({ where: { id }, data: { name }, select: { id: true } });
    },
  };
}

const s = initServer();

const noWidget = (id: number) => ({
  status: 404 as const,
  body: errorBodyOf(ERROR_MESSAGES.noSuchResource('widgetId', id)),
});

/** The fixture contract's API, its widgets kept in `widgets`. */
export function widgetsApi(widgets: WidgetStore) {
  return defineApi(({ db, tracing, metrics, publicUrl }) => {
    const cursors = pageCursors(db);
    const storeFor = batchedStore({
      name: 'pets',
      store: petStoreWithRenames(db),
      tracing,
      queries: { ...PET_QUERY_SUMMARIES, renamePet: { operation: 'UPDATE', table: 'pets' } },
      sharing: PET_STORE_SHARING,
    });
    return {
      contract: fixtureContract,
      handlers: s.router(fixtureContract, {
        pets: {
          ...createPetsRouter({
            storeFor,
            cursors,
            publicUrl,
            onIdempotentCreate: metrics.idempotentCreate,
          }),
          renamePet: async ({ params, body, res }) => {
            const store = storeFor(res);
            await store.renamePet(params.petId, body.name);
            const [pet] = await store.findPets([params.petId]);
            return { status: 200, body: pet as Pet };
          },
        },
        widgets: {
          listWidgets: async ({ query }) => ({
            status: 200,
            body: widgets.list(query.colour),
          }),
          createWidget: async ({ body, headers, res }) => {
            const widget = widgets.create(body, headers['idempotency-key']);
            res.setHeader('Widget-Location', `/v1/widgets/${widget.id}`);
            return { status: 201, body: widget };
          },
          getWidget: async ({ params }) => {
            const widget = widgets.find(params.widgetId);
            return widget ? { status: 200, body: widget } : noWidget(params.widgetId);
          },
          updateWidget: async ({ params, body }) => {
            const widget = widgets.update(params.widgetId, body);
            return widget ? { status: 200, body: widget } : noWidget(params.widgetId);
          },
          deleteWidget: async ({ params }) =>
            widgets.remove(params.widgetId)
              ? { status: 204, body: undefined }
              : noWidget(params.widgetId),
        },
      }),
      onRefusal: unissuedCursorReporter(cursors),
    };
  });
}
