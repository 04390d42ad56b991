/**
 * Reading a request as an operation takes it: its query, headers and JSON body, each checked with
 * the contract's own zod schemas, failures turned into the Error body's `details`.
 */
import type { ErrorDetail } from '@animal-store/contract';
import { isZodType } from '@ts-rest/core';
import type { z } from 'zod';
import { MAX_BODY_BYTES } from './limits.js';

/**
 * The query as name → value, a name given twice → its values: the schema then refuses a list
 * where it expects one value (docs/interface.md: a known parameter given twice is 400).
 */
export function queryObject(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    query[name] = values.length === 1 ? (values[0] as string) : values;
  }
  return query;
}

export function headerObject(headers: Headers): Record<string, string> {
  return Object.fromEntries(headers);
}

/** One entry per invalid field, the first problem of each: `body` for the body as a whole. */
export function detailsOf(error: z.ZodError): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const add = (path: string, message: string) => {
    if (!details.some((detail) => detail.path === path)) details.push({ path, message });
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // A strict object names its unknown fields in one issue: each is a field of its own.
      for (const key of issue.keys) add(key, issue.message);
    } else {
      add(issue.path.length > 0 ? issue.path.join('.') : 'body', issue.message);
    }
  }
  return details;
}

/** What a schema made of a part of the request: its output, or why not. */
export type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly details: ErrorDetail[] };

/** `value` read by `schema` when the route declares one, else passed through as it is. */
export function checkWith(schema: unknown, value: unknown): Checked<unknown> {
  if (!isZodType(schema)) return { ok: true, value };
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, details: detailsOf(parsed.error) };
}

/** Why a body could not be read as JSON, as the interface answers it. */
export type BodyRefusal = 'unsupported_media_type' | 'payload_too_large' | 'malformed_json';

export type BodyReading =
  | { readonly ok: true; readonly json: unknown; readonly empty: boolean }
  | { readonly ok: false; readonly refusal: BodyRefusal };

const DECODED_ENCODINGS = new Set(['gzip', 'deflate']);

/** `application/json`, in UTF-8 if a charset is named at all. */
function declaredJson(contentType: string | null): boolean {
  if (contentType === null) return false;
  const [type = '', ...parameters] = contentType.split(';').map((part) => part.trim());
  if (type.toLowerCase() !== 'application/json') return false;
  const charset = parameters
    .map((parameter) => parameter.split('='))
    .find(([name]) => name?.trim().toLowerCase() === 'charset')?.[1];
  if (charset === undefined) return true;
  const name = charset.trim().replace(/^"|"$/g, '').toLowerCase();
  return name === 'utf-8' || name === 'utf8';
}

/**
 * The body's bytes, stopping as soon as they pass the limit: nothing more than that is held,
 * whatever the client sends. Undefined when there were too many.
 */
async function boundedBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The body of an operation that takes one (docs/interface.md, "Size limits and bodies"): 415 for
 * one not declared JSON in UTF-8 or in an encoding other than gzip and deflate, 413 past 16 KiB
 * (measured after decoding, and refused on its Content-Length alone when that says so), 400
 * `malformed_json` for bytes that are not UTF-8 JSON. An empty body reads as no value at all.
 */
export async function readJsonBody(request: Request): Promise<BodyReading> {
  const encoding = request.headers.get('content-encoding')?.trim().toLowerCase() || 'identity';
  if (encoding !== 'identity' && !DECODED_ENCODINGS.has(encoding)) {
    return { ok: false, refusal: 'unsupported_media_type' };
  }
  const announced = Number(request.headers.get('content-length') ?? Number.NaN);
  if (encoding === 'identity' && announced > MAX_BODY_BYTES) {
    if (!declaredJson(request.headers.get('content-type'))) {
      return { ok: false, refusal: 'unsupported_media_type' };
    }
    await request.body?.cancel();
    return { ok: false, refusal: 'payload_too_large' };
  }
  if (request.body === null || announced === 0) return { ok: true, json: undefined, empty: true };
  let bytes: Uint8Array | undefined;
  try {
    const stream =
      encoding === 'identity'
        ? request.body
        : request.body.pipeThrough(
            new DecompressionStream(encoding as CompressionFormat) as ReadableWritablePair<
              Uint8Array,
              Uint8Array
            >,
          );
    bytes = await boundedBytes(stream);
  } catch {
    // A compressed body that does not decompress.
    return { ok: false, refusal: 'malformed_json' };
  }
  if (bytes !== undefined && bytes.byteLength === 0) {
    return { ok: true, json: undefined, empty: true };
  }
  if (!declaredJson(request.headers.get('content-type'))) {
    return { ok: false, refusal: 'unsupported_media_type' };
  }
  if (bytes === undefined) return { ok: false, refusal: 'payload_too_large' };
  try {
    // `fatal`: bytes that are not UTF-8 are refused, never replaced; a leading BOM is dropped.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { ok: true, json: JSON.parse(text), empty: false };
  } catch {
    return { ok: false, refusal: 'malformed_json' };
  }
}
