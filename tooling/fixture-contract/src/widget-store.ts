import type { Widget, WidgetValues } from './fixture-contract.js';

/**
 * Widgets in memory, in the order they were made, one per Idempotency-Key: the store the server's
 * and the mock's implementations of the fixture's widgets share, as a newcomer's resource would
 * have a store of its own.
 */
export function createWidgetStore() {
  const widgets = new Map<number, Widget>();
  const byIdempotencyKey = new Map<string, Widget>();
  let lastId = 0;
  return {
    list: (colour?: Widget['colour']): Widget[] =>
      [...widgets.values()].filter((widget) => !colour || widget.colour === colour),
    find: (id: number): Widget | undefined => widgets.get(id),
    /** A new widget, unless the key made one before: then that one. */
    create(values: WidgetValues, idempotencyKey: string): Widget {
      const earlier = byIdempotencyKey.get(idempotencyKey);
      if (earlier) return earlier;
      lastId += 1;
      const widget = { id: lastId, ...values };
      widgets.set(widget.id, widget);
      byIdempotencyKey.set(idempotencyKey, widget);
      return widget;
    },
    update(id: number, changes: Partial<WidgetValues>): Widget | undefined {
      const widget = widgets.get(id);
      if (!widget) return undefined;
      const changed = { ...widget, ...changes };
      widgets.set(id, changed);
      return changed;
    },
    remove: (id: number): boolean => widgets.delete(id),
    /** Keeps `widget` whatever it holds: data that never went through the contract. */
    plant(widget: { id: number } & Record<string, unknown>): void {
      widgets.set(widget.id, widget as Widget);
    },
  };
}

export type WidgetStore = ReturnType<typeof createWidgetStore>;
