import type { IncomingMessage } from 'node:http';

/** `version-traceid-parentid-flags`, lower-case hex (W3C Trace Context, level 1). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;
const ALL_ZEROS = /^0+$/;

/**
 * The trace id of a request's `traceparent` header, so that while the server records no traces
 * its log line can still be found from the caller's trace. A malformed header (or several) is
 * ignored, as the specification asks.
 */
export function traceIdOf(req: IncomingMessage): string | undefined {
  const header = req.headers.traceparent;
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header);
  if (!match) return undefined;
  const [, version, traceId = '', parentId = '', rest] = match;
  // Version ff is forbidden; version 00 has nothing after the flags; later versions may.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(parentId)) return undefined;
  return traceId;
}
