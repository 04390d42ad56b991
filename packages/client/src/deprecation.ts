import { findLink } from './link-header.js';

/** What the server said about an operation it has deprecated. */
export interface DeprecationNotice {
  /** The operation's name in the contract, e.g. `getPet`. */
  readonly operation: string;
  readonly method: string;
  /** The route as the contract writes it, e.g. `/v1/pets/:petId`. */
  readonly path: string;
  /** The `Deprecation` header as sent (RFC 9745: `@` and Unix seconds), if any. */
  readonly deprecation: string | undefined;
  /** When the operation became deprecated, if the `Deprecation` header says so. */
  readonly deprecatedAt: Date | undefined;
  /** The `Sunset` header as sent (RFC 8594: an HTTP date), if any. */
  readonly sunset: string | undefined;
  /** When the operation will be removed, if the `Sunset` header says so. */
  readonly sunsetAt: Date | undefined;
  /** The `Link: rel="successor-version"` target, if any. */
  readonly successor: string | undefined;
}

export type DeprecationListener = (notice: DeprecationNotice) => void;

export interface DeprecatedRoute {
  readonly operation: string;
  readonly method: string;
  readonly path: string;
}

function parseDeprecation(value: string | null): Date | undefined {
  const match = value === null ? null : /^@(-?\d+)$/.exec(value.trim());
  return match ? new Date(Number(match[1]) * 1000) : undefined;
}

function parseHttpDate(value: string | null): Date | undefined {
  const time = value === null ? Number.NaN : Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** The default listener: one console warning, so a deprecation is seen but not noisy. */
export function warnOnConsole(notice: DeprecationNotice): void {
  const removal = notice.sunsetAt ? ` and will be removed on ${notice.sunsetAt.toISOString()}` : '';
  const instead = notice.successor ? `; use ${notice.successor} instead` : '';
  console.warn(
    `[@animal-store/client] ${notice.operation} (${notice.method} ${notice.path}) is deprecated${removal}${instead}.`,
  );
}

/**
 * Returns a function to call with every response's headers. It tells `listener` about a
 * `Deprecation` or `Sunset` header once per operation: a caller in a loop gets one notice,
 * not one per request.
 */
export function createDeprecationReporter(listener: DeprecationListener) {
  const reported = new Set<string>();
  return (route: DeprecatedRoute, headers: Headers): void => {
    const deprecation = headers.get('deprecation');
    const sunset = headers.get('sunset');
    if ((deprecation === null && sunset === null) || reported.has(route.operation)) return;
    reported.add(route.operation);
    listener({
      ...route,
      deprecation: deprecation ?? undefined,
      deprecatedAt: parseDeprecation(deprecation),
      sunset: sunset ?? undefined,
      sunsetAt: parseHttpDate(sunset),
      successor: findLink(headers.get('link'), 'successor-version'),
    });
  };
}
