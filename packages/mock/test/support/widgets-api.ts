/**
 * For the served-contract test: the mock's implementations of the fixture contract
 * (`@animal-store/fixture-contract`), written as a newcomer writes them. The pets resource has
 * the mock's own operations and one more, over a store with one more method; the widgets resource
 * has operations of its own over a store in memory. Nothing else of the mock is changed for them.
 */
import { ERROR_MESSAGES, errorBodyOf, type Pet } from '@animal-store/contract';
import { buildOpenApiDocumentFor } from '@animal-store/contract/openapi';
import { fixtureContract } from '@animal-store/fixture-contract';
import { createWidgetStore, type WidgetStore } from '@animal-store/fixture-contract/widget-store';
import { defineMockApi, type Implementations } from '../../src/mocked-api.js';
import { IdempotencyRecords } from '../../src/pets/idempotency.js';
import { PageCursors } from '../../src/pets/page-cursor.js';
import { PetStore } from '../../src/pets/pet-store.js';
import { petsOperations } from '../../src/pets/pets-operations.js';
import { seedPets } from '../../src/pets/seed.js';

/** The pet store with the one more method the fixture's extra pets operation needs. */
class FixturePetStore extends PetStore {
  /** The pet with its new name; undefined when no pet has the id. */
  rename(id: number, name: string): Pet | undefined {
    const pet = this.pets.find((stored) => stored.id === id);
    if (pet === undefined) return undefined;
    pet.name = name;
    return { ...pet };
  }
}

const noWidget = (id: number) => ({
  status: 404 as const,
  body: errorBodyOf(ERROR_MESSAGES.noSuchResource('widgetId', id)),
});

function widgetsOperations(widgets: WidgetStore): Implementations<typeof fixtureContract.widgets> {
  return {
    listWidgets: { run: async ({ query }) => ({ status: 200, body: widgets.list(query.colour) }) },
    createWidget: {
      async run({ body, headers }) {
        const widget = widgets.create(body, headers['idempotency-key']);
        return {
          status: 201,
          body: widget,
          headers: { 'Widget-Location': `/v1/widgets/${widget.id}` },
        };
      },
    },
    getWidget: {
      async run({ params }) {
        const widget = widgets.find(params.widgetId);
        return widget ? { status: 200, body: widget } : noWidget(params.widgetId);
      },
    },
    updateWidget: {
      async run({ params, body }) {
        const widget = widgets.update(params.widgetId, body);
        return widget ? { status: 200, body: widget } : noWidget(params.widgetId);
      },
    },
    deleteWidget: {
      run: async ({ params }) =>
        widgets.remove(params.widgetId)
          ? { status: 204, body: undefined }
          : noWidget(params.widgetId),
    },
  };
}

/** The fixture contract's API, starting with the demo pets and no widgets. */
export const widgetsApi = defineMockApi(() => {
  const store = new FixturePetStore(seedPets(undefined));
  return {
    contract: fixtureContract,
    operations: {
      pets: {
        ...petsOperations({
          store,
          cursors: new PageCursors(),
          idempotency: new IdempotencyRecords(),
        }),
        renamePet: {
          async run({ params, body }) {
            const pet = store.rename(params.petId, body.name);
            if (pet) return { status: 200, body: pet };
            return {
              status: 404,
              body: errorBodyOf(ERROR_MESSAGES.noSuchResource('petId', params.petId)),
            };
          },
        },
      },
      widgets: widgetsOperations(createWidgetStore()),
    },
    document: buildOpenApiDocumentFor(fixtureContract),
  };
});
