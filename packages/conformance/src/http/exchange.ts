/** One request the check sent and the answer it got, as the report shows them. */

/** The shell variable a replayed request reads the API key from: the key never enters a report. */
export const KEY_VARIABLE = 'ANIMAL_STORE_KEY';

/** Which credential a request carries. */
export type RequestCredential =
  /** The key under test. */
  | 'key'
  /** No `Authorization` header at all. */
  | 'none'
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
  readonly body?: RequestBody;
}

/** A request as the check sent it, short of the key. */
export interface RecordedRequest {
  readonly method: string;
  /** Absolute. */
  readonly url: string;
  readonly credential: RequestCredential;
  /** The headers sent besides `Authorization` and `Content-Type`. */
  readonly headers: Readonly<Record<string, string>>;
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

function authorizationOf(credential: RequestCredential, key: string): string | undefined {
  if (credential === 'key') return `Bearer ${key}`;
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
    ...(spec.body && { body: spec.body }),
  };
}

export async function send(baseUrl: string, key: string, spec: RequestSpec): Promise<Exchange> {
  const request = recorded(new URL(spec.target, baseUrl).toString(), spec);
  const headers = new Headers(spec.headers);
  const authorization = authorizationOf(request.credential, key);
  if (authorization !== undefined) headers.set('authorization', authorization);
  if (spec.body?.contentType !== undefined) headers.set('content-type', spec.body.contentType);
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
