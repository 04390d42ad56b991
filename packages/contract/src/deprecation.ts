import type { HeadersDocumentation } from './documentation.js';

/** When an operation was deprecated, when it is removed, and what replaces it. */
export interface Deprecation {
  readonly deprecatedAt: Date;
  readonly sunsetAt: Date;
  /** The path of the operation to use instead, e.g. `/v1/pets`. */
  readonly successor: string;
}

/** The headers every response of a deprecated operation carries, errors included. */
export function deprecationHeaders<const Successor extends string>(
  deprecation: Deprecation & { readonly successor: Successor },
) {
  return {
    /** RFC 9745: `@` and the Unix time in seconds since when the operation is deprecated. */
    Deprecation: `@${deprecation.deprecatedAt.getTime() / 1000}`,
    /** RFC 8594: the HTTP date of removal. */
    Sunset: deprecation.sunsetAt.toUTCString(),
    /** RFC 8288: where to go instead. */
    Link: `<${deprecation.successor}>; rel="successor-version"`,
  } as const;
}

export type DeprecationHeaders = ReturnType<typeof deprecationHeaders>;

/** `2025-01-01T00:00:00Z`: an instant as RFC 3339 writes it, without zero milliseconds. */
const instant = (date: Date) => date.toISOString().replace(/\.000Z$/, 'Z');

/** How the OpenAPI document describes the headers of `deprecation`. */
export function deprecationHeadersDocumentation(deprecation: Deprecation): HeadersDocumentation {
  const headers = deprecationHeaders(deprecation);
  return {
    Deprecation: {
      required: true,
      component: 'Deprecation',
      description: `RFC 9745: the operation is deprecated since ${instant(deprecation.deprecatedAt)} (\`${headers.Deprecation}\`)`,
      schema: { type: 'string' },
      example: headers.Deprecation,
    },
    Sunset: {
      required: true,
      component: 'Sunset',
      description: `RFC 8594: the operation is removed on \`${headers.Sunset}\``,
      schema: { type: 'string' },
      example: headers.Sunset,
    },
    Link: {
      required: true,
      component: 'SuccessorVersionLink',
      description: 'RFC 8288: the operation to use instead (`rel="successor-version"`)',
      schema: { type: 'string' },
      example: headers.Link,
    },
  };
}
