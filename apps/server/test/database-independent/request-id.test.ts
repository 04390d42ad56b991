import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      logLines.push(JSON.parse(line));
  });
  api = await startTestServer({ logger: createLogger('info', stream) });
});
afterAll(() => api.close());

describe('Every response: X-Request-Id', () => {
  it('echoes a sane incoming X-Request-Id (1 to 128 of letters, digits and -_.:)', async () => {
    for (const id of ['a', 'req-123_abc.def:9', 'x'.repeat(128)]) {
      const res = await api.request('/v1/pets', { headers: { 'x-request-id': id } });
      expect(res.headers.get('x-request-id')).toBe(id);
    }
  });

  it('replaces an insane one with a new id', async () => {
    for (const id of ['x'.repeat(129), 'has space', 'semi;colon', 'slash/', '']) {
      const res = await api.request('/v1/pets', { headers: { 'x-request-id': id } });
      const given = res.headers.get('x-request-id');
      expect(given).toMatch(/^[A-Za-z0-9\-_.:]{1,128}$/);
      expect(given).not.toBe(id);
    }
  });

  it('gives a new id when none is sent, on errors too', async () => {
    const a = await api.request('/nowhere');
    const b = await api.request('/nowhere');
    expect(a.headers.get('x-request-id')).toBeTruthy();
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it("the id appears in the server's log line for that request, and the Authorization value never does", async () => {
    await api.request('/v1/pets', {
      headers: { 'x-request-id': 'trace-me-42', authorization: 'Bearer secret-key-value' },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const line = logLines.find(
      (entry) => (entry.req as { id?: string } | undefined)?.id === 'trace-me-42',
    );
    expect(line).toBeDefined();
    expect(line?.res).toMatchObject({ statusCode: 401 });
    expect(JSON.stringify(logLines)).not.toContain('secret-key-value');
  });
});
