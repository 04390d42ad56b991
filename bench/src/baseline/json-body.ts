import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ClientError } from './responses.js';

/** Request bodies over 16 KiB are refused with 413, as the server does. */
const MAX_BODY_BYTES = 16 * 1024;

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

const tooLarge = () =>
  new ClientError('payload_too_large', 'The request body is larger than 16 KiB.');

function readBytes(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Keep reading to the end (and drop it), so the connection stays usable.
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      size > MAX_BODY_BYTES ? reject(tooLarge()) : resolve(Buffer.concat(chunks)),
    );
    req.on('error', reject);
  });
}

/**
 * The parsed JSON body, or undefined for a request that announces none. A body that is not
 * declared `application/json` is 415, a larger one 413, one that is not UTF-8 JSON 400.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && Number(req.headers['content-length'] ?? 0) === 0) return undefined;
  if (!JSON_MEDIA_TYPE.test(req.headers['content-type'] ?? '')) {
    req.resume();
    throw new ClientError(
      'unsupported_media_type',
      'Send the request body as JSON with Content-Type: application/json.',
    );
  }
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
    req.resume();
    throw tooLarge();
  }
  const bytes = await readBytes(req);
  if (!isUtf8(bytes))
    throw new ClientError('malformed_json', 'The request body is not valid UTF-8.');
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ClientError('malformed_json', 'The request body could not be read as JSON.');
  }
}
