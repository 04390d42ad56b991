import type { NewPet } from '@animal-store/contract';
import type { MockClock } from './clock.js';

/** How a mock is set up: `createMock`'s options. */
export interface MockOptions {
  /**
   * The pets to start with: by default the demo animals `pnpm dev` seeds (ids 1 to 6); `false`
   * for an empty catalogue.
   */
  readonly seed?: false | readonly NewPet[];
  /** The mock's time (`systemClock()` unless given; `manualClock()` for time that stands still). */
  readonly clock?: MockClock;
  /**
   * The origin `Link` URLs and the OpenAPI document's server name, as a deployment's
   * `PUBLIC_URL`; by default the origin each request addressed.
   */
  readonly publicUrl?: string;
  /**
   * Browser origins allowed to call the mock from pages of their own (CORS), as a deployment's
   * `CORS_ORIGINS`: none by default. A preflight from another origin, or none, is 405.
   */
  readonly corsOrigins?: readonly string[];
}
