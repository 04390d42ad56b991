/**
 * For tests (`@animal-store/server/testing/example-transport`): the contract's examples sent to a
 * server on this machine, the real one or the mock, each request written as the example has it.
 */
import { request as httpRequest } from 'node:http';
import type { Transport, WireAnswer, WireRequest } from '@animal-store/contract/examples';

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

/** Repeated headers joined by `, `, as fetch joins them; names in lower case. */
function headersOf(rawHeaders: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    const value = rawHeaders[index + 1] as string;
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

/**
 * Sends an example's requests through node:http, which writes the target as it is given: fetch
 * would drop a fragment, which some examples send on purpose.
 */
export function exampleTransport(target: ExampleTarget): Transport {
  const origin = new URL(target.baseUrl);
  return (request) =>
    new Promise<WireAnswer>((resolve, reject) => {
      const authorization = authorizationOf(request, target);
      const body = request.body && Buffer.from(request.body.text);
      const outgoing = httpRequest(
        {
          hostname: origin.hostname,
          port: origin.port,
          method: request.method,
          path: request.target,
          headers: {
            ...request.headers,
            ...(authorization !== undefined && { authorization }),
            ...(request.body?.contentType !== undefined && {
              'content-type': request.body.contentType,
            }),
            ...(body && { 'content-length': String(body.length) }),
          },
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              headers: headersOf(incoming.rawHeaders),
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
}
