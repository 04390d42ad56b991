/**
 * The layers of an error from a query, as the classifiers of this package look through them
 * (`isDatabaseFault`, `isRecordNotFound`, `isUniqueViolation`): one walk, so that they always
 * see the same layers.
 */

/** One layer of an error: any object, read by its properties alone. */
export type ErrorLayer = Readonly<Record<string, unknown>>;

/** Bounds the walk: an error can be its own cause, directly or further down. */
const MOST_LAYERS = 5;

/**
 * `error` and what is under it, outermost first: each layer's `cause`, or where it has none,
 * the driver-adapter error Prisma keeps in `meta.driverAdapterError` (a Prisma error carries its
 * adapter's error there, not as its cause). Ends at the first layer that is not an object.
 */
export function* errorLayers(error: unknown): Generator<ErrorLayer> {
  let current = error;
  for (let depth = 0; depth < MOST_LAYERS; depth += 1) {
    if (current === null || typeof current !== 'object') return;
    const layer = current as ErrorLayer;
    yield layer;
    current = layer.cause ?? (layer.meta as ErrorLayer | undefined)?.driverAdapterError;
  }
}
