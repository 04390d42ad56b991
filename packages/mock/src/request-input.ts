/**
 * Reading a request as an operation takes it: its query, headers and JSON body, each checked with
 * the contract's own zod schemas, failures turned into the Error body's `details`, as the server
 * reads them (apps/server/src/http/json-body.ts and error-mapper.ts).
 */
import { ERROR_MESSAGES, type ErrorDetail, type ErrorMessage } from '@animal-store/contract';
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

/** A part of the request a schema reads, named as details name it when the part is the problem. */
export type RequestPart = 'path' | 'headers' | 'query' | 'body';

/**
 * One entry per invalid field, the first problem of each: the part's name for the part as a
 * whole (an empty or non-object body), an unknown field of a strict object under its own name.
 */
function detailsOf(part: RequestPart, error: z.ZodError): ErrorDetail[] {
  const details = new Map<string, string>();
  for (const issue of error.issues) {
    const fields =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => [...issue.path, key].join('.'))
        : [issue.path.length === 0 ? part : issue.path.join('.')];
    for (const field of fields) {
      if (!details.has(field)) details.set(field, issue.message);
    }
  }
  return [...details].map(([path, message]) => ({ path, message }));
}

/** What a schema made of a part of the request: its output, or why not. */
export type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly details: ErrorDetail[] };

/** `value` read by `schema` when the route declares one, else passed through as it is. */
export function checkWith(part: RequestPart, schema: unknown, value: unknown): Checked<unknown> {
  if (!isZodType(schema)) return { ok: true, value };
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, details: detailsOf(part, parsed.error) };
}

export type BodyReading =
  | { readonly ok: true; readonly json: unknown }
  | { readonly ok: false; readonly refusal: ErrorMessage };

const refused = (refusal: ErrorMessage): BodyReading => ({ ok: false, refusal });

const DECODED_ENCODINGS = new Set(['gzip', 'deflate']);
const UTF8_BOM = [0xef, 0xbb, 0xbf];
const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

const encodingOf = (headers: Headers) =>
  headers.get('content-encoding')?.trim().toLowerCase() || 'identity';

/** Whether `contentType` names `application/json`, whatever its parameters. */
const declaresJson = (contentType: string) =>
  contentType.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';

/** JSON is UTF-8: a charset named must be `utf-8` or `utf8`, in any case. */
function namesUtf8(contentType: string): boolean {
  const charset = CHARSET_PARAMETER.exec(contentType)?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/**
 * The body's bytes after its `Content-Encoding`, stopping as soon as they pass the limit: nothing
 * more than that is held, whatever the client sends.
 */
async function decodedBytes(request: Request): Promise<Uint8Array | ErrorMessage> {
  const encoding = encodingOf(request.headers);
  if (encoding !== 'identity' && !DECODED_ENCODINGS.has(encoding)) {
    return ERROR_MESSAGES.encodingUnsupported;
  }
  const body = request.body as ReadableStream<Uint8Array>;
  const stream =
    encoding === 'identity'
      ? body
      : body.pipeThrough(
          new DecompressionStream(encoding as CompressionFormat) as ReadableWritablePair<
            Uint8Array,
            Uint8Array
          >,
        );
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel();
        return ERROR_MESSAGES.bodyTooLarge;
      }
      chunks.push(value);
    }
  } catch {
    // A compressed body that does not decompress.
    return ERROR_MESSAGES.bodyNotJson;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Bytes declared JSON, as JSON: the UTF-8 and BOM rules, then `JSON.parse`. */
function parsedJson(bytes: Uint8Array): BodyReading {
  let text: string;
  try {
    // `fatal`: bytes that are not UTF-8 are refused, never replaced; a leading BOM is dropped.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refused(ERROR_MESSAGES.bodyNotUtf8);
  }
  if (bytes.byteLength === 0) return { ok: true, json: undefined };
  if (bytes.byteLength === UTF8_BOM.length && UTF8_BOM.every((byte, i) => bytes[i] === byte)) {
    return refused(ERROR_MESSAGES.bodyNotJson);
  }
  try {
    return { ok: true, json: JSON.parse(text) };
  } catch {
    return refused(ERROR_MESSAGES.bodyNotJson);
  }
}

/**
 * The body of an operation whose route declares one (docs/interface.md, "Size limits and
 * bodies"), in the server's order: an empty body needs no type; a body declared JSON must name
 * UTF-8 (415), is refused on a `Content-Length` over 16 KiB at once (413), then read, decoded
 * (gzip, deflate; another encoding 415) up to 16 KiB (413) and parsed (400 `malformed_json`); a
 * non-empty body of another type is 415. A body whose length is not announced (chunked, or a
 * `Request` made in-process) is read to learn whether it is empty.
 */
export async function readJsonBody(request: Request): Promise<BodyReading> {
  const { headers } = request;
  const announced = headers.has('transfer-encoding') ? null : headers.get('content-length');
  if (request.body === null || (announced !== null && Number(announced) === 0)) {
    return { ok: true, json: undefined };
  }
  const contentType = headers.get('content-type') ?? '';
  if (!declaresJson(contentType)) {
    if (announced !== null) return refused(ERROR_MESSAGES.bodyNotDeclaredJson);
    const bytes = await decodedBytes(request);
    if (!(bytes instanceof Uint8Array)) return refused(bytes);
    return bytes.byteLength === 0
      ? { ok: true, json: undefined }
      : refused(ERROR_MESSAGES.bodyNotDeclaredJson);
  }
  if (!namesUtf8(contentType)) return refused(ERROR_MESSAGES.charsetNotUtf8);
  if (encodingOf(headers) === 'identity' && Number(announced ?? 0) > MAX_BODY_BYTES) {
    await request.body.cancel();
    return refused(ERROR_MESSAGES.bodyTooLarge);
  }
  const bytes = await decodedBytes(request);
  return bytes instanceof Uint8Array ? parsedJson(bytes) : refused(bytes);
}
