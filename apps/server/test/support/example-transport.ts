import type { Transport, WireRequest } from '@animal-store/contract/examples';
import { sendRaw } from './raw-http.js';

/** A server on this machine, and the key its examples are sent with. */
export interface ExampleTarget {
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  readonly apiKey: string;
}

/** The `Authorization` a request carries: the target's key unless told otherwise. */
function authorizationOf({ credential }: WireRequest, target: ExampleTarget): string | undefined {
  if (credential === 'none') return undefined;
  return credential === 'key' ? `Bearer ${target.apiKey}` : credential.authorization;
}

/** A request fetch cannot send (a `#` in its target), written out byte for byte. */
function rawRequest(request: WireRequest, target: ExampleTarget): string {
  const authorization = authorizationOf(request, target);
  const headers = {
    host: new URL(target.baseUrl).host,
    ...request.headers,
    ...(authorization !== undefined && { authorization }),
    ...(request.body?.contentType !== undefined && { 'content-type': request.body.contentType }),
    'content-length': String(Buffer.byteLength(request.body?.text ?? '')),
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `${request.method} ${request.target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${request.body?.text ?? ''}`;
}

/**
 * Sends an example's requests to a server: through fetch, as clients do, or byte for byte where
 * fetch would change the request (it drops a fragment).
 */
export function exampleTransport(target: ExampleTarget): Transport {
  return async (request) => {
    if (request.target.includes('#')) {
      const port = Number(new URL(target.baseUrl).port);
      const { status, headers, body } = await sendRaw(port, rawRequest(request, target));
      return { status, headers, body };
    }
    const authorization = authorizationOf(request, target);
    const headers = new Headers(request.headers);
    if (authorization !== undefined) headers.set('authorization', authorization);
    if (request.body?.contentType !== undefined) {
      headers.set('content-type', request.body.contentType);
    }
    const answer = await fetch(`${target.baseUrl}${request.target}`, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : new TextEncoder().encode(request.body.text),
    });
    return {
      status: answer.status,
      headers: Object.fromEntries(answer.headers),
      body: await answer.text(),
    };
  };
}
