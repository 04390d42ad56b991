/** One request the check sent and the answer it got, as the report shows them. */

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** The shell variable a replayed request reads the API key from: the key never enters a report. */
export const KEY_VARIABLE = 'ANIMAL_STORE_KEY';

/** The shell variable a replayed request reads the revoked key from (`--revoked-key`). */
export const REVOKED_KEY_VARIABLE = 'ANIMAL_STORE_REVOKED_KEY';

/** The keys a run sends: never printed, replays read them from the shell's variables. */
export interface Keys {
  readonly key: string;
  readonly revokedKey?: string;
}

/** Which credential a request carries. */
export type RequestCredential =
  /** The key under test. */
  | 'key'
  /** No `Authorization` header at all. */
  | 'none'
  /** The revoked key (`--revoked-key`). */
  | 'revoked-key'
  /** This `Authorization` value, as sent: a credential made up to be refused. */
  | { readonly authorization: string };

/** A request's body, as sent. */
export interface RequestBody {
  readonly text: string;
  /** `Content-Type`; none when undefined. */
  readonly contentType?: string;
  /** A shell expression that produces `text`, for a body too long to print. */
  readonly shell?: string;
}

/** A request a rule asks to send. */
export interface RequestSpec {
  readonly method: string;
  /** The path and query, e.g. `/v1/pets?limit=1`, or an absolute URL (a `Link` to follow). */
  readonly target: string;
  readonly credential?: RequestCredential;
  readonly headers?: Readonly<Record<string, string>>;
  /** For a header too long to print: a shell expression that produces its value, by name. */
  readonly headerShell?: Readonly<Record<string, string>>;
  readonly body?: RequestBody;
  /**
   * Send `target` as the request target byte for byte, not as fetch would make it (fetch drops a
   * `#` and what follows, and normalises paths).
   */
  readonly verbatim?: boolean;
}

/** A request as the check sent it, short of the key. */
export interface RecordedRequest {
  readonly method: string;
  /** Absolute. */
  readonly url: string;
  readonly credential: RequestCredential;
  /** The headers sent besides `Authorization` and `Content-Type`. */
  readonly headers: Readonly<Record<string, string>>;
  /** For a header too long to print: a shell expression that produces its value, by name. */
  readonly headerShell?: Readonly<Record<string, string>>;
  /** The request target as sent, when it is not `url`'s own (a `#` in it, say). */
  readonly target?: string;
  readonly body?: RequestBody;
}

/** An answer as the deployment sent it. */
export interface RecordedResponse {
  readonly status: number;
  readonly statusText: string;
  /** Lower-case names; a repeated header's values joined by `, `, as fetch joins them. */
  readonly headers: Readonly<Record<string, string>>;
  /** As text, whatever its type. */
  readonly body: string;
}

export interface Exchange {
  readonly request: RecordedRequest;
  readonly response: RecordedResponse;
}

/** Long enough for a slow deployment, short enough that a hung one does not hang the check. */
const REQUEST_TIMEOUT_MS = 30_000;

function authorizationOf(credential: RequestCredential, keys: Keys): string | undefined {
  if (credential === 'key') return `Bearer ${keys.key}`;
  if (credential === 'revoked-key') {
    if (keys.revokedKey === undefined) throw new Error('no revoked key was given');
    return `Bearer ${keys.revokedKey}`;
  }
  if (credential === 'none') return undefined;
  return credential.authorization;
}

/** The request got no answer: the connection was refused or dropped, or the answer took too long. */
export class NoAnswer extends Error {
  constructor(
    readonly request: RecordedRequest,
    cause: unknown,
  ) {
    super(`no answer: ${reasonOf(cause)}`, { cause });
    this.name = 'NoAnswer';
  }
}

/** fetch says only `fetch failed`: the reason (ECONNREFUSED…) is its cause. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

function recorded(url: string, spec: RequestSpec): RecordedRequest {
  return {
    method: spec.method,
    url,
    credential: spec.credential ?? 'key',
    headers: { ...spec.headers },
    ...(spec.headerShell && { headerShell: spec.headerShell }),
    ...(spec.verbatim && { target: spec.target }),
    ...(spec.body && { body: spec.body }),
  };
}

function headersOf(request: RecordedRequest, keys: Keys): Record<string, string> {
  const headers: Record<string, string> = { ...request.headers };
  const authorization = authorizationOf(request.credential, keys);
  if (authorization !== undefined) headers.authorization = authorization;
  if (request.body?.contentType !== undefined) headers['content-type'] = request.body.contentType;
  return headers;
}

/**
 * Sends the request target as it is, through node:http, which writes what it is given: fetch
 * would drop a fragment. The answer is read as fetch reads it: repeated headers joined by `, `.
 */
function sendVerbatim(baseUrl: string, request: RecordedRequest, keys: Keys): Promise<Exchange> {
  const origin = new URL(baseUrl);
  const body = request.body && Buffer.from(request.body.text);
  const sendRequest = origin.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Exchange>((resolve, reject) => {
    const outgoing = sendRequest(
      {
        protocol: origin.protocol,
        hostname: origin.hostname.replace(/^\[|\]$/g, ''),
        port: origin.port,
        method: request.method,
        path: request.target,
        headers: {
          ...headersOf(request, keys),
          ...(body && { 'content-length': String(body.length) }),
        },
        // A connection of its own, closed after the answer: the deployment may close it anyway.
        agent: false,
        timeout: REQUEST_TIMEOUT_MS,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const headers: Record<string, string> = {};
          const raw = incoming.rawHeaders;
          for (let index = 0; index < raw.length; index += 2) {
            const name = (raw[index] as string).toLowerCase();
            const value = raw[index + 1] as string;
            headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
          }
          resolve({
            request,
            response: {
              status: incoming.statusCode ?? 0,
              statusText: incoming.statusMessage ?? '',
              headers,
              body: Buffer.concat(chunks).toString('utf8'),
            },
          });
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('the answer took too long')));
    outgoing.on('error', reject);
    outgoing.end(body);
  }).catch((error: unknown) => {
    throw new NoAnswer(request, error);
  });
}

/**
 * The URL a request is sent to. A verbatim target that is not a path (`*`, or an absolute URL of
 * another scheme) goes to the origin, its `/` standing for it; `target` says what was sent.
 */
function urlOf(baseUrl: string, spec: RequestSpec): string {
  const pathOnly = !spec.verbatim || spec.target.startsWith('/');
  return new URL(pathOnly ? spec.target : '/', baseUrl).toString();
}

export async function send(baseUrl: string, keys: Keys, spec: RequestSpec): Promise<Exchange> {
  const request = recorded(urlOf(baseUrl, spec), spec);
  if (spec.verbatim) return sendVerbatim(baseUrl, request, keys);
  const headers = new Headers(headersOf(request, keys));
  try {
    const answer = await fetch(request.url, {
      method: spec.method,
      headers,
      // fetch would label a string body text/plain: a body's type is the rule's to choose.
      body: spec.body === undefined ? undefined : new TextEncoder().encode(spec.body.text),
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const response: RecordedResponse = {
      status: answer.status,
      statusText: answer.statusText,
      headers: Object.fromEntries(answer.headers),
      body: await answer.text(),
    };
    return { request, response };
  } catch (error) {
    throw new NoAnswer(request, error);
  }
}
