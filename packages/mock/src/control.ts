/**
 * The Node server's control path, outside the API (`/_mock/`): what a test does to a mock in its
 * own process (`mock.keys.create`, `mock.keys.revoke`), done over HTTP to a mock running on its
 * own, as the command's `keys` subcommands do. No real server has it.
 *
 * - `POST /_mock/keys` with `{"plan":"pro"}` or `{"perMinute":5,"perDay":100}` (enterprise):
 *   201 `{"key":"ask_…","plan":"pro","perMinute":300,"perDay":10000}`;
 * - `DELETE /_mock/keys/<key>`: 204, the key revoked; 404 for a key the mock never had.
 */
import type { IncomingMessage } from 'node:http';
import { ERROR_MESSAGES } from '@animal-store/contract';
import { type NewMockKey, recordOf } from './api-keys.js';
import type { AnimalStoreMock } from './api-mock.js';
import { MAX_BODY_BYTES } from './limits.js';
import { errorResponse, jsonResponse } from './responses.js';

/** Every path under it is the mock's own. */
export const CONTROL_PATH = '/_mock/';
const KEYS_PATH = `${CONTROL_PATH}keys`;

async function jsonOf(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) {
    text += chunk;
    if (text.length > MAX_BODY_BYTES) throw new SyntaxError('too large');
  }
  return JSON.parse(text);
}

const invalidBody = (message: string) =>
  errorResponse(ERROR_MESSAGES.invalidFields(['body']), {}, [{ path: 'body', message }]);

async function createKey(mock: AnimalStoreMock, request: IncomingMessage): Promise<Response> {
  let wanted: unknown;
  try {
    wanted = await jsonOf(request);
  } catch {
    return errorResponse(ERROR_MESSAGES.bodyNotJson);
  }
  if (typeof wanted !== 'object' || wanted === null) return invalidBody('must be a JSON object');
  try {
    const { plan, quota } = recordOf(wanted as NewMockKey);
    return jsonResponse(201, { key: mock.keys.create(wanted as NewMockKey), plan, ...quota });
  } catch (error) {
    return invalidBody(error instanceof Error ? error.message : String(error));
  }
}

function revokeKey(mock: AnimalStoreMock, sent: string): Response {
  let key = sent;
  try {
    key = decodeURIComponent(sent);
    mock.keys.revoke(key);
  } catch {
    return errorResponse(ERROR_MESSAGES.noSuchResource('keyId', key));
  }
  return new Response(null, { status: 204 });
}

/** The answer to a request under `CONTROL_PATH`. */
export async function controlResponse(
  mock: AnimalStoreMock,
  request: IncomingMessage,
): Promise<Response> {
  const path = (request.url ?? '').split('?', 1)[0] ?? '';
  if (path === KEYS_PATH && request.method === 'POST') return createKey(mock, request);
  if (path.startsWith(`${KEYS_PATH}/`) && request.method === 'DELETE') {
    return revokeKey(mock, path.slice(KEYS_PATH.length + 1));
  }
  return errorResponse(ERROR_MESSAGES.noRoute(path));
}
