/** Request headers over 16 KiB are refused with 431 by Node's own parser. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Request bodies over 16 KiB are refused with 413. */
export const MAX_BODY_BYTES = 16 * 1024;
