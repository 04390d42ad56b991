import { describe, expect, it } from 'vitest';
import { MalformedResponse, ResponseReader } from './response-reader.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

const OK =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"id":1234}';
const SHED = 'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\ncontent-length: 2\r\n\r\n{}';

describe('ResponseReader', () => {
  it('reads a response with a Content-Length in one piece', () => {
    expect(new ResponseReader().feed(bytes(OK))).toEqual({
      status: 200,
      retryAfter: undefined,
      keepAlive: true,
    });
  });

  it('keeps Retry-After, whatever the case of the header names', () => {
    expect(new ResponseReader().feed(bytes(SHED))).toEqual({
      status: 503,
      retryAfter: '1',
      keepAlive: true,
    });
  });

  it('completes only once the whole body is read, however the bytes are split', () => {
    for (let cut = 1; cut < OK.length; cut++) {
      const reader = new ResponseReader();
      expect(reader.feed(bytes(OK.slice(0, cut)))).toBeUndefined();
      expect(reader.feed(bytes(OK.slice(cut)))).toEqual({
        status: 200,
        retryAfter: undefined,
        keepAlive: true,
      });
    }
  });

  it('reads one response after another on the same connection', () => {
    const reader = new ResponseReader();
    expect(reader.feed(bytes(OK))?.status).toBe(200);
    expect(reader.feed(bytes(SHED))?.status).toBe(503);
    expect(reader.feed(bytes(OK))?.status).toBe(200);
  });

  it('reads a chunked body to its last chunk, split anywhere', () => {
    const chunked =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nb\r\n, world!!!!\r\n0\r\n\r\n';
    for (let cut = 1; cut < chunked.length; cut++) {
      const reader = new ResponseReader();
      expect(reader.feed(bytes(chunked.slice(0, cut)))).toBeUndefined();
      expect(reader.feed(bytes(chunked.slice(cut)))).toEqual({
        status: 200,
        retryAfter: undefined,
        keepAlive: true,
      });
    }
  });

  it('ends a body without length or chunking when the server closes', () => {
    const reader = new ResponseReader();
    expect(reader.feed(bytes('HTTP/1.1 200 OK\r\n\r\nsome body'))).toBeUndefined();
    expect(reader.closed()).toEqual({ status: 200, retryAfter: undefined, keepAlive: false });
  });

  it('has no response when the server closes in the middle of one with a length', () => {
    const reader = new ResponseReader();
    expect(reader.feed(bytes(OK.slice(0, -3)))).toBeUndefined();
    expect(reader.closed()).toBeUndefined();
  });

  it('reads no body for a 204', () => {
    const reader = new ResponseReader();
    expect(reader.feed(bytes('HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n'))?.status).toBe(
      204,
    );
  });

  it('tells when the server closes after the response', () => {
    const close =
      'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';
    expect(new ResponseReader().feed(bytes(close))?.keepAlive).toBe(false);
    const old = 'HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n';
    expect(new ResponseReader().feed(bytes(old))?.keepAlive).toBe(false);
    const kept = 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n';
    expect(new ResponseReader().feed(bytes(kept))?.keepAlive).toBe(true);
  });

  it('refuses what is not an HTTP/1.x response', () => {
    expect(() => new ResponseReader().feed(bytes('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(
      MalformedResponse,
    );
  });
});
