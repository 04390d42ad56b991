// @module-tag node-runtime: Node's and Express's request and response prototypes
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
/** Each finished exchange: whether its request and response ended with the prototype they began with. */
const kept: Array<{ url: string | undefined; request: boolean; response: boolean }> = [];

beforeAll(async () => {
  api = await startTestServer();
  api.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const requestPrototype = Object.getPrototypeOf(req);
    const responsePrototype = Object.getPrototypeOf(res);
    res.once('finish', () =>
      kept.push({
        url: req.url,
        request: Object.getPrototypeOf(req) === requestPrototype,
        response: Object.getPrototypeOf(res) === responsePrototype,
      }),
    );
  });
});
afterAll(() => api.close());

describe('Requests and responses through the whole pipeline', () => {
  // Express swaps the prototype of each request and response it is handed, unless they were
  // made with its own; on Node 20 every swapped one gets a hidden class of its own, which
  // slowed the whole server (docs/performance.md).
  it('keep the prototype they were made with, whatever the answer', async () => {
    const created = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'Rex', categoryId: 3 },
    });
    expect(created.status).toBe(201);
    const { id } = await created.json();
    const answers = [
      created.status,
      (await api.request(`/v1/pets/${id}`)).status,
      (await api.request('/v1/pets?limit=5')).status,
      (await api.request('/v1/pets/not-a-pet-id')).status,
      (await api.request('/nowhere')).status,
      (
        await api.request('/v1/pets', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{',
        })
      ).status,
    ];
    expect(answers).toEqual([201, 200, 200, 404, 404, 400]);

    await vi.waitFor(() => expect(kept).toHaveLength(answers.length));
    expect(kept.filter((exchange) => !exchange.request || !exchange.response)).toEqual([]);
  });
});
