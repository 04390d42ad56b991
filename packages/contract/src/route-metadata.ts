import { type Deprecation, type DeprecationHeaders, deprecationHeaders } from './deprecation.js';
import type { HeadersDocumentation } from './documentation.js';

/**
 * How settled an operation is; carried as `x-stability` in the OpenAPI document.
 * The seed names `experimental` and `beta` markers; no v1 operation uses them.
 */
export type Stability = 'experimental' | 'beta' | 'stable' | 'deprecated';

/**
 * How the OpenAPI document describes a success response of a route. Error responses describe
 * themselves (`errorResponse`): the same one is shared by many routes.
 */
export interface SuccessResponseDocumentation {
  readonly description: string;
  /** The headers it carries besides those every response does. */
  readonly headers?: HeadersDocumentation;
}

interface OperationMetadata {
  /** The operation's name in the interface description, e.g. `listPets`: its contract key. */
  readonly operationId: string;
  /** Each success status the route declares, documented. */
  readonly responses: Readonly<Record<number, SuccessResponseDocumentation>>;
  readonly requestBody?: { readonly description: string };
}

interface CurrentOperationMetadata extends OperationMetadata {
  readonly stability: Exclude<Stability, 'deprecated'>;
  readonly deprecation?: never;
}

interface DeprecatedOperationMetadata extends OperationMetadata {
  readonly stability: 'deprecated';
  /** Every response of the operation, errors included, carries its `deprecationHeaders`. */
  readonly deprecation: Deprecation;
}

/**
 * The `metadata` every route of the contract carries: its name, how settled it is, and what
 * the OpenAPI document says of its success responses. A deprecated route (`deprecated: true`)
 * also says when it was deprecated and when it is removed.
 */
export type RouteMetadata = CurrentOperationMetadata | DeprecatedOperationMetadata;

/**
 * The headers every response of `route` carries, errors included, because it is deprecated;
 * undefined for a current operation. E.g. `deprecationHeadersOf(contract.pets.getPet)`.
 */
export function deprecationHeadersOf(route: {
  readonly metadata: RouteMetadata;
}): DeprecationHeaders | undefined {
  const { deprecation } = route.metadata;
  return deprecation && deprecationHeaders(deprecation);
}
