/**
 * The interface's rules for reading and judging a createPet body, written out on their own so a
 * test can say, for any bytes and headers, what the service must answer: the steps of "Body
 * reading" (415, 413, 400 `malformed_json`) and then the contract's NewPet.
 */
import { isUtf8 } from 'node:buffer';
import { gunzipSync, inflateSync } from 'node:zlib';
import { type ErrorCode, NewPetSchema, type Pet } from '@animal-store/contract';

export const MAX_BODY_BYTES = 16 * 1024;

/** The body of a createPet request, as bytes and the headers that say what they are. */
export interface CreateBody {
  bytes: Uint8Array;
  contentType?: string;
  contentEncoding?: string;
}

export type ExpectedCreate =
  | { status: 201; pet: Omit<Pet, 'id'>; json: unknown }
  | { status: number; code: ErrorCode; fields?: string[] };

const KNOWN_FIELDS = ['name', 'categoryId', 'status'] as const;

/** Content types whose bodies are read as JSON: `application/json`, whatever its other parameters. */
function mediaTypeOf(contentType: string): { json: boolean; charset?: string } {
  const [type = '', ...parameters] = contentType.split(';');
  const charset = parameters
    .map((parameter) => parameter.trim().match(/^charset=(.*)$/i)?.[1])
    .find((value) => value !== undefined)
    ?.replace(/^"(.*)"$/, '$1');
  return { json: type.trim().toLowerCase() === 'application/json', charset };
}

function decoded(bytes: Uint8Array, encoding: string | undefined): Buffer | ErrorCode {
  switch ((encoding ?? 'identity').toLowerCase()) {
    case 'identity':
      return Buffer.from(bytes);
    case 'gzip':
      try {
        return gunzipSync(bytes);
      } catch {
        return 'malformed_json';
      }
    case 'deflate':
      try {
        return inflateSync(bytes);
      } catch {
        return 'malformed_json';
      }
    default:
      return 'unsupported_media_type';
  }
}

/** Which fields a JSON value that is not a NewPet gets `details` for: one per invalid field. */
export function invalidFields(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return ['body'];
  const record = value as Record<string, unknown>;
  const shape = NewPetSchema.shape;
  const fields = Object.keys(record).filter(
    (key) => !(KNOWN_FIELDS as readonly string[]).includes(key),
  );
  if (!shape.name.safeParse(record.name).success) fields.push('name');
  if (!shape.categoryId.safeParse(record.categoryId).success) fields.push('categoryId');
  if (!shape.status.safeParse(record.status).success) fields.push('status');
  return fields.sort();
}

/** What the service must answer to createPet with this body (and a valid key, no other faults). */
export function expectedCreate(body: CreateBody): ExpectedCreate {
  const error = (status: number, code: ErrorCode, fields?: string[]) => ({ status, code, fields });
  if (body.bytes.length === 0) return error(400, 'validation_failed', ['body']);
  const type = body.contentType === undefined ? undefined : mediaTypeOf(body.contentType);
  if (!type?.json) return error(415, 'unsupported_media_type');
  // UTF-8 by either of its names (WHATWG Encoding lists `utf8` as one).
  if (type.charset !== undefined && !['utf-8', 'utf8'].includes(type.charset.toLowerCase()))
    return error(415, 'unsupported_media_type');
  const bytes = decoded(body.bytes, body.contentEncoding);
  if (typeof bytes === 'string') return error(bytes === 'malformed_json' ? 400 : 415, bytes);
  if (bytes.length > MAX_BODY_BYTES) return error(413, 'payload_too_large');
  // A decoded body of nothing is an empty body.
  if (bytes.length === 0) return error(400, 'validation_failed', ['body']);
  if (!isUtf8(bytes)) return error(400, 'malformed_json');
  // RFC 8259 §8.1: a parser may ignore a byte order mark (the interface is silent; it is ignored).
  const text = bytes.toString('utf8').replace(/^\ufeff/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return error(400, 'malformed_json');
  }
  const parsed = NewPetSchema.safeParse(json);
  if (!parsed.success) return error(400, 'validation_failed', invalidFields(json));
  return { status: 201, pet: parsed.data, json };
}
