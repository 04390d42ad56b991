/** Request headers over 16 KiB are refused with 431 by Node's own parser. */
export const MAX_HEADER_BYTES = 16 * 1024;
/**
 * The most header lines that fit in MAX_HEADER_BYTES as sent (`x:` and CRLF, four bytes each).
 * Node keeps the first 1,000 by default and drops the rest unseen, an `Authorization` among
 * them; keeping this many, a request with more is over the byte limit too, and refused.
 */
export const MAX_HEADER_LINES = MAX_HEADER_BYTES / 4;
/** Request bodies over 16 KiB are refused with 413. */
export const MAX_BODY_BYTES = 16 * 1024;

export interface ClientTimeouts {
  /** To send all request headers (ms). */
  headersMs: number;
  /** To send the whole request, body included (ms). */
  requestMs: number;
  /** An idle keep-alive connection stays open this long (ms). */
  keepAliveMs: number;
}

export const DEFAULT_CLIENT_TIMEOUTS: ClientTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
};

/**
 * Connections open at once: past it, Node closes a new one as it is accepted. It bounds what the
 * connections themselves hold (a socket, its parser and buffers, a request being read) however
 * many clients come; the work admitted from them is bounded by load shedding (overload/).
 */
export const DEFAULT_MAX_CONNECTIONS = 10_000;
