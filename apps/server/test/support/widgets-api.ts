/**
 * For the served-contract test: the handlers of the fixture contract
 * (`@animal-store/fixture-contract`), written as a newcomer writes them. The pets resource has
 * the server's own handlers and one more, `renamePet`, over one more store method; the
 * widgets resource has handlers of its own over a store in memory.
 */
import { ERROR_MESSAGES, errorBodyOf, type Pet } from '@animal-store/contract';
import type { DatabaseClient } from '@animal-store/db';
import { fixtureContract, type Widget, type WidgetValues } from '@animal-store/fixture-contract';
import { initServer } from '@ts-rest/express';
import { batchedStore } from '../../src/batching/batched-store.js';
import { PET_STORE_SHARING } from '../../src/batching/pet-store.js';
import { defineApi } from '../../src/http/served-api.js';
import { pageCursors } from '../../src/pets/page-cursor.js';
import { createPetStore, PET_QUERY_SUMMARIES } from '../../src/pets/pet-store.js';
import { createPetsRouter, unissuedCursorReporter } from '../../src/pets/pets.router.js';

/** Widgets in memory, in the order they were made. */
export function createWidgetStore() {
  const widgets = new Map<number, Widget>();
  const byIdempotencyKey = new Map<string, Widget>();
  let lastId = 0;
  return {
    async list(colour?: Widget['colour']): Promise<Widget[]> {
      return [...widgets.values()].filter((widget) => !colour || widget.colour === colour);
    },
    async find(id: number): Promise<Widget | undefined> {
      return widgets.get(id);
    },
    /** A new widget, unless the key made one before: then that one. */
    async create(values: WidgetValues, idempotencyKey: string): Promise<Widget> {
      const earlier = byIdempotencyKey.get(idempotencyKey);
      if (earlier) return earlier;
      lastId += 1;
      const widget = { id: lastId, ...values };
      widgets.set(widget.id, widget);
      byIdempotencyKey.set(idempotencyKey, widget);
      return widget;
    },
    async update(id: number, changes: Partial<WidgetValues>): Promise<Widget | undefined> {
      const widget = widgets.get(id);
      if (!widget) return undefined;
      const changed = { ...widget, ...changes };
      widgets.set(id, changed);
      return changed;
    },
    async remove(id: number): Promise<boolean> {
      return widgets.delete(id);
    },
    /** Keeps `widget` whatever it holds: data that never went through the contract. */
    plant(widget: { id: number } & Record<string, unknown>): void {
      widgets.set(widget.id, widget as Widget);
    },
  };
}

export type WidgetStore = ReturnType<typeof createWidgetStore>;

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
            body: await widgets.list(query.colour),
          }),
          createWidget: async ({ body, headers, res }) => {
            const widget = await widgets.create(body, headers['idempotency-key']);
            res.setHeader('Widget-Location', `/v1/widgets/${widget.id}`);
            return { status: 201, body: widget };
          },
          getWidget: async ({ params }) => {
            const widget = await widgets.find(params.widgetId);
            return widget ? { status: 200, body: widget } : noWidget(params.widgetId);
          },
          updateWidget: async ({ params, body }) => {
            const widget = await widgets.update(params.widgetId, body);
            return widget ? { status: 200, body: widget } : noWidget(params.widgetId);
          },
          deleteWidget: async ({ params }) =>
            (await widgets.remove(params.widgetId))
              ? { status: 204, body: undefined }
              : noWidget(params.widgetId),
        },
      }),
      onRefusal: unissuedCursorReporter(cursors),
    };
  });
}
