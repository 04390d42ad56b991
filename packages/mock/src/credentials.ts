/** The API key a request sends, and the 401 it gets without a valid one (docs/interface.md). */
import { ERROR_MESSAGES } from '@animal-store/contract';
import type { KeyRecord, Keyring } from './api-keys.js';
import { errorResponse } from './responses.js';

/** What a request sent as its credential. */
export type Credential =
  | { readonly kind: 'none' }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'valid'; readonly key: string; readonly record: KeyRecord };

/** The scheme word in any case, spaces or tabs, the key, and trailing spaces or tabs. */
const BEARER = /^bearer[ \t]+([^ \t]+)[ \t]*$/i;

export function credentialOf(headers: Headers, keys: Keyring): Credential {
  const value = headers.get('authorization')?.trim() ?? '';
  if (value === '') return { kind: 'none' };
  const token = BEARER.exec(value)?.[1];
  const record = token === undefined ? undefined : keys.find(token);
  return token !== undefined && record !== undefined
    ? { kind: 'valid', key: token, record }
    : { kind: 'invalid' };
}

const CHALLENGE = 'Bearer realm="animal-store"';

/** 401 with the challenge: `error="invalid_token"` when a credential was sent but is not valid. */
export function unauthorized(credential: Credential): Response {
  const sent = credential.kind !== 'none';
  return errorResponse(sent ? ERROR_MESSAGES.keyNotValid : ERROR_MESSAGES.keyRequired, {
    'WWW-Authenticate': sent ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE,
  });
}
