/** Request headers over 16 KiB are refused with 431 by Node's own parser. */
export const MAX_HEADER_BYTES = 16 * 1024;
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
