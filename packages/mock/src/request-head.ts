/**
 * Step 4 of the order of checks, on the head of a request as Node read it, before it becomes a
 * WHATWG `Request` (which cannot carry what is checked here), as the server checks it
 * (apps/server/src/http/request-head.ts).
 */
import type { IncomingMessage } from 'node:http';
import { ERROR_MESSAGES, type ErrorMessage } from '@animal-store/contract';
import { MAX_HEADER_BYTES } from './limits.js';

/**
 * A host name, IPv4 or bracketed IPv6 address, and an optional port (RFC 9110 `Host`). A name
 * may hold `_`, as Docker's service names do, but none of the characters that would change the
 * meaning of a `Link` header the host is written into.
 */
const VALID_HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?$/;

function isValidHost(host: string): boolean {
  const found = VALID_HOST.exec(host);
  return found !== null && Number(found[1] ?? 0) <= 65_535;
}

const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;
/** A URI scheme (RFC 3986 §3.1) and its colon. */
const ANY_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** What the request addressed, and what is wrong with its head, if anything. */
export interface RequestHead {
  /** The host the request addressed: its absolute target's, else its `Host`, if valid. */
  readonly host: string | undefined;
  /** The path as sent, which the request is routed by: an absolute target's path, or `*`. */
  readonly path: string;
  /** The query as sent, from its `?`. */
  readonly search: string;
  readonly malformed: ErrorMessage<'malformed_request' | 'headers_too_large'> | undefined;
}

/**
 * Header bytes as sent: Node's own limit counts only names and values, not `: ` and CRLF. Node
 * reads header bytes as Latin-1, one character each, so a length is a byte count.
 */
function headerBytes(raw: readonly string[]): number {
  let bytes = 2;
  for (const text of raw) bytes += text.length + 2;
  return bytes;
}

/** The values of the header `name` as sent, each line its own. */
function linesOf(raw: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index]?.toLowerCase() === name) values.push(raw[index + 1] ?? '');
  }
  return values;
}

/** The target's path and query as sent (a fragment, refused, cut off), and an absolute one's host. */
function targetOf(target: string) {
  const absolute = ABSOLUTE_FORM.exec(target);
  const [rest = ''] = (absolute ? target.slice(absolute[0].length) : target).split('#', 1);
  const queryAt = rest.indexOf('?');
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  return {
    path: absolute && path === '' ? '/' : path,
    search: queryAt === -1 ? '' : rest.slice(queryAt),
    authority: absolute?.[1],
  };
}

function malformationOf(request: IncomingMessage, authority: string | undefined) {
  const target = request.url ?? '/';
  if (headerBytes(request.rawHeaders) > MAX_HEADER_BYTES) return ERROR_MESSAGES.headersTooLarge;
  if (target.includes('#')) return ERROR_MESSAGES.fragmentInTarget;
  const hosts = linesOf(request.rawHeaders, 'host');
  const [host] = hosts;
  const missing = host === undefined && request.httpVersion !== '1.0';
  if (missing || hosts.length > 1 || (host !== undefined && !isValidHost(host))) {
    return ERROR_MESSAGES.hostNotValid;
  }
  if (linesOf(request.rawHeaders, 'authorization').length > 1) {
    return ERROR_MESSAGES.authorizationRepeated;
  }
  if (target.startsWith('/')) return undefined;
  // Absolute-form (`http://api.example/v1/pets`) is for proxies; `OPTIONS *` goes on (to a 404).
  if (authority !== undefined) {
    return isValidHost(authority) ? undefined : ERROR_MESSAGES.targetHostNotValid;
  }
  return ANY_SCHEME.test(target) ? ERROR_MESSAGES.targetSchemeNotHttp : undefined;
}

/**
 * The head of `request`: a `#` in the target, a missing (HTTP/1.1), repeated or malformed `Host`,
 * a repeated `Authorization`, headers over 16 KiB as sent, an absolute target of another scheme
 * than http or https or with a malformed host. A request whose target is an absolute URL
 * addressed that URL's host, whatever its `Host` says (RFC 9112 §3.2.2).
 */
export function requestHeadOf(request: IncomingMessage): RequestHead {
  const { path, search, authority } = targetOf(request.url ?? '/');
  const malformed = malformationOf(request, authority);
  const [sentHost] = linesOf(request.rawHeaders, 'host');
  const host = authority ?? sentHost;
  return {
    host: host !== undefined && isValidHost(host) ? host : undefined,
    path,
    search,
    malformed,
  };
}
