import { isIPv6 } from 'node:net';
import { ERROR_MESSAGES } from '@animal-store/contract';
import type { NextFunction, Request, RequestHandler } from 'express';
import { ApiError } from './api-error.js';
import { MAX_HEADER_BYTES } from './limits.js';

/**
 * A host name, IPv4 or bracketed IPv6 address, and an optional port (RFC 9110 `Host`). A name
 * may hold `_`, as Docker's service names do (RFC 3986's reg-name allows it), but none of the
 * characters that would change the meaning of a `Link` header the host is written into.
 */
const VALID_HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** The highest TCP port, five digits: a URL with a greater one does not parse (WHATWG URL). */
const MAX_PORT = '65535';

function isValidHost(host: string): boolean {
  if (!VALID_HOST.test(host)) return false;
  const colon = host.lastIndexOf(':');
  if (colon === -1 || host.endsWith(']')) return true;
  // Only a five-digit port can be too high; digit strings of one length compare as numbers.
  return host.length - colon - 1 !== 5 || host.slice(colon + 1) <= MAX_PORT;
}

/** The request's `Host` lines and `Authorization` lines, in one pass over its headers as sent. */
function hostAndAuthorizationLines(req: Request) {
  let host: string | undefined;
  let hosts = 0;
  let authorizations = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    // Only a name of the right length is lowered: most are not, and need no new string.
    if (name.length === 4 && name.toLowerCase() === 'host') {
      hosts += 1;
      host ??= raw[i + 1] ?? '';
    } else if (name.length === 13 && name.toLowerCase() === 'authorization') {
      authorizations += 1;
    }
  }
  return { host, hosts, authorizations };
}

/**
 * Header bytes as sent: Node's own limit counts only names and values, not `: ` and CRLF. Node
 * reads header bytes as Latin-1, one character each, so a length is a byte count.
 */
function headerBytes(req: Request): number {
  let bytes = 2;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    bytes += (raw[i]?.length ?? 0) + (raw[i + 1]?.length ?? 0) + 4;
  }
  return bytes;
}

/**
 * What the HTTP parser lets through but a server must refuse: request headers over 16 KiB on
 * the wire (431), a missing (HTTP/1.1), repeated or malformed `Host` (400, RFC 9112 §3.2), a
 * repeated `Authorization` (400: Node keeps only the first, where a proxy in front may have read
 * another, and RFC 6750 §3.1 calls it an invalid request), and a `#` in the request target,
 * which no client may send (a fragment is not part of it, RFC 9112 §3.2) and which would
 * otherwise silently cut off the query after it.
 */
export const requestHeadCheck: RequestHandler = (req, _res, next) => {
  if (headerBytes(req) > MAX_HEADER_BYTES) {
    return next(new ApiError(ERROR_MESSAGES.headersTooLarge));
  }
  if (req.originalUrl.includes('#')) {
    return next(new ApiError(ERROR_MESSAGES.fragmentInTarget));
  }
  const { host, hosts, authorizations } = hostAndAuthorizationLines(req);
  const missing = host === undefined && req.httpVersion !== '1.0';
  if (missing || hosts > 1 || (host !== undefined && !isValidHost(host))) {
    return next(new ApiError(ERROR_MESSAGES.hostNotValid));
  }
  if (authorizations > 1) {
    return next(new ApiError(ERROR_MESSAGES.authorizationRepeated));
  }
  // Origin-form (`/v1/pets`) is what clients send; absolute-form is for proxies, rare here.
  if (req.originalUrl.charCodeAt(0) !== SLASH) return addressTarget(req, next);
  next();
};

const SLASH = '/'.charCodeAt(0);
const ABSOLUTE_FORM = /^https?:\/\/([^/?]*)/i;
/** A URI scheme (RFC 3986 §3.1) and its colon. */
const ANY_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * A request whose target is an absolute URL (`GET http://api.example/v1/pets`) addressed that
 * URL's host, whatever its `Host` says (RFC 9112 §3.2.2): the host is taken from the target, so
 * that the `Link` URLs built from `Host` (`requestOrigin`) point where the client asked.
 */
function addressTarget(req: Request, next: NextFunction) {
  const authority = ABSOLUTE_FORM.exec(req.originalUrl)?.[1];
  if (authority === undefined) {
    // `OPTIONS *` goes on (to a 404); a URL of another scheme names nothing this server serves.
    if (!ANY_SCHEME.test(req.originalUrl)) return next();
    return next(new ApiError(ERROR_MESSAGES.targetSchemeNotHttp));
  }
  if (!isValidHost(authority)) {
    return next(new ApiError(ERROR_MESSAGES.targetHostNotValid));
  }
  req.headers.host = authority;
  next();
}

/**
 * The scheme the client used, `https` or `http`. Behind a trusted proxy Express reads it from
 * `X-Forwarded-Proto`, which the client itself wrote if the proxy passed its header on: any
 * value but `https` counts as `http`, so that nothing else a client sends becomes a URL's scheme.
 */
export function requestScheme(req: Pick<Request, 'protocol'>): 'http' | 'https' {
  return req.protocol.toLowerCase() === 'https' ? 'https' : 'http';
}

/** The origin the client addressed: its `Host`, or this server's address for HTTP/1.0 without one. */
export function requestOrigin(req: Pick<Request, 'protocol' | 'headers' | 'socket'>): string {
  const scheme = requestScheme(req);
  const host = req.headers.host;
  if (host) return `${scheme}://${host}`;
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `${scheme}://${isIPv6(address) ? `[${address}]` : address}:${req.socket.localPort}`;
}
