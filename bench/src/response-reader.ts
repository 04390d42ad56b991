/**
 * Reads HTTP/1.1 responses off a keep-alive socket that has one request outstanding at a time,
 * keeping only what the overload bench needs (status and Retry-After). node:http's client does
 * much more per request, enough to make the generator, not the server, the limit of a crowd.
 */

export interface ResponseHead {
  status: number;
  retryAfter: string | undefined;
  /** False when the server said it closes the connection after this response. */
  keepAlive: boolean;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

type Body =
  | { kind: 'length'; remaining: number }
  /** Chunked: `remaining` of the current chunk's data and its CRLF; a size line when 0. */
  | { kind: 'chunked'; remaining: number; last: boolean }
  /** Neither length nor chunked: the body ends when the server closes. */
  | { kind: 'until-close' };

interface ParsedHead extends ResponseHead {
  body: Body;
}

export class MalformedResponse extends Error {}

function headerMap(lines: readonly string[]): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) {
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
  }
  return headers;
}

function bodyOf(status: number, headers: ReadonlyMap<string, string>): Body {
  // A 204 or 304 has no body whatever its headers say.
  if (status === 204 || status === 304) return { kind: 'length', remaining: 0 };
  if (/\bchunked\b/i.test(headers.get('transfer-encoding') ?? '')) {
    return { kind: 'chunked', remaining: 0, last: false };
  }
  const length = headers.get('content-length');
  return length === undefined
    ? { kind: 'until-close' }
    : { kind: 'length', remaining: Number(length) };
}

/** HTTP/1.1 keeps the connection unless told otherwise, HTTP/1.0 only when told to. */
function keepsAlive(minorVersion: string, headers: ReadonlyMap<string, string>): boolean {
  const connection = headers.get('connection')?.toLowerCase() ?? '';
  return minorVersion === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
}

function parseHead(text: string): ParsedHead {
  const lines = text.split('\r\n');
  const [, minor, code] = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '') ?? [];
  if (minor === undefined || code === undefined) {
    throw new MalformedResponse(`bad status line: ${lines[0]}`);
  }
  const status = Number(code);
  const headers = headerMap(lines.slice(1));
  const body = bodyOf(status, headers);
  return {
    status,
    retryAfter: headers.get('retry-after'),
    // A body that ends when the server closes leaves nothing to keep alive.
    keepAlive: keepsAlive(minor, headers) && body.kind !== 'until-close',
    body,
  };
}

/**
 * Fed the socket's bytes as they come; `feed` returns the response's head once the whole
 * response, body included, has been read, and is then ready for the next one.
 */
export class ResponseReader {
  private pending: Buffer = Buffer.alloc(0);
  private head: ParsedHead | undefined;

  /** The head of the response completed by `chunk`, if it completes one. */
  feed(chunk: Buffer): ResponseHead | undefined {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    if (!this.head) {
      const end = this.pending.indexOf(HEAD_END);
      if (end === -1) return undefined;
      this.head = parseHead(this.pending.toString('latin1', 0, end));
      this.pending = this.pending.subarray(end + HEAD_END.length);
    }
    return this.readBody(this.head) ? this.finish() : undefined;
  }

  /** The server closed: a body read until close ends here; any other response is cut short. */
  closed(): ResponseHead | undefined {
    return this.head?.body.kind === 'until-close' ? this.finish() : undefined;
  }

  private finish(): ResponseHead {
    const { status, retryAfter, keepAlive } = this.head as ParsedHead;
    this.head = undefined;
    this.pending = Buffer.alloc(0);
    return { status, retryAfter, keepAlive };
  }

  /** Consumes body bytes from `pending`; true once the body is complete. */
  private readBody(head: ParsedHead): boolean {
    const { body } = head;
    if (body.kind === 'until-close') {
      this.pending = Buffer.alloc(0);
      return false;
    }
    if (body.kind === 'length') {
      const taken = Math.min(body.remaining, this.pending.length);
      body.remaining -= taken;
      this.pending = this.pending.subarray(taken);
      return body.remaining === 0;
    }
    return this.readChunks(body);
  }

  private readChunks(body: Extract<Body, { kind: 'chunked' }>): boolean {
    for (;;) {
      if (body.remaining > 0) {
        const taken = Math.min(body.remaining, this.pending.length);
        body.remaining -= taken;
        this.pending = this.pending.subarray(taken);
        if (body.remaining > 0) return false;
        if (body.last) return true;
      }
      const lineEnd = this.pending.indexOf(CRLF);
      if (lineEnd === -1) return false;
      const size = Number.parseInt(this.pending.toString('latin1', 0, lineEnd), 16);
      if (Number.isNaN(size)) throw new MalformedResponse('bad chunk size');
      this.pending = this.pending.subarray(lineEnd + CRLF.length);
      // The data's CRLF is read with it; after the last (empty) chunk, the final CRLF (no
      // trailers are sent to a client that did not ask for them).
      body.remaining = size + CRLF.length;
      body.last = size === 0;
    }
  }
}
