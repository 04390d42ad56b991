/**
 * The generic client over a contract with a resource the client package has never heard of
 * (`widgets`), against a server that answers what each test scripts: no server of this
 * repository serves widgets. The Animal Store's own operations are tested against the live
 * server (`live-server.test.ts`).
 */

import { fixtureContract, type Widget } from '@animal-store/fixture-contract';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApiClient, type DeprecationNotice } from '../src/index.js';
import { type ScriptedServer, startScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(async () => {
  await server?.close();
});

const widget: Widget = { id: 7, name: 'Sprocket', colour: 'blue' };
const unavailable = {
  status: 503,
  body: { code: 'service_unavailable', message: 'Down', status: 503 },
} as const;

function createWidgetsClient(onDeprecation?: (notice: DeprecationNotice) => void) {
  return createApiClient(fixtureContract, {
    baseUrl: server.baseUrl,
    apiKey: 'ask_widgets',
    retry: { sleep: async () => {} },
    ...(onDeprecation && { onDeprecation }),
  });
}

/** The requests received while `call` ran. */
async function requestsDuring(call: () => Promise<unknown>) {
  const before = server.requests.length;
  await call();
  return server.requests.slice(before);
}

describe('every router and operation of the contract', () => {
  test('is a method of the client, sent as its route says', async () => {
    const client = createWidgetsClient();
    expect(Object.keys(client.widgets).sort()).toEqual([
      'createWidget',
      'deleteWidget',
      'getWidget',
      'listWidgets',
      'updateWidget',
    ]);
    expect(Object.keys(client.pets).sort()).toEqual([
      'createPet',
      'getPet',
      'listPets',
      'renamePet',
    ]);
    server.script({ status: 200, body: { ...widget, colour: 'red' } }, { status: 204 });

    let updated: Awaited<ReturnType<typeof client.widgets.updateWidget>> | undefined;
    const [patch, deletion] = await requestsDuring(async () => {
      updated = await client.widgets.updateWidget({
        params: { widgetId: 7 },
        body: { colour: 'red' },
      });
      expect(await client.widgets.deleteWidget({ params: { widgetId: 7 } })).toMatchObject({
        status: 204,
        body: undefined,
      });
    });

    expect(updated).toMatchObject({ status: 200, body: { id: 7, colour: 'red' } });
    expect(patch).toMatchObject({
      method: 'PATCH',
      url: '/v1/widgets/7',
      body: '{"colour":"red"}',
    });
    expect(patch?.headers.authorization).toBe('Bearer ask_widgets');
    expect(deletion).toMatchObject({ method: 'DELETE', url: '/v1/widgets/7' });
  });

  test('reports rate-limit state and deprecation from any operation', async () => {
    const notices: DeprecationNotice[] = [];
    const client = createWidgetsClient((notice) => notices.push(notice));
    server.script({
      status: 200,
      headers: {
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '9',
        'x-ratelimit-reset': '1767225660',
        deprecation: '@1735689600',
      },
      body: [widget],
    });

    await client.widgets.listWidgets({ query: { colour: 'blue' } });

    expect(client.rateLimit).toEqual({ limit: 10, remaining: 9, reset: 1767225660 });
    expect(notices).toMatchObject([
      { operation: 'listWidgets', deprecatedAt: new Date('2025-01-01T00:00:00Z') },
    ]);
  });
});

describe('a server that keeps failing', () => {
  test('is retried while the retry budget lasts, then not, until answers earn it back', async () => {
    const client = createWidgetsClient();
    const ok = { status: 200, body: [] };
    server.script(...Array<typeof unavailable>(6).fill(unavailable));
    // Five attempts, the most a call makes; each failure spent a token of ten.
    expect(await requestsDuring(() => client.widgets.listWidgets())).toHaveLength(5);
    // Half the tokens are gone: no retry.
    expect(await requestsDuring(() => client.widgets.listWidgets())).toHaveLength(1);
    // Each answer that is no failure puts back a tenth of a token.
    server.script(...Array<typeof ok>(21).fill(ok), unavailable, ok);
    for (let i = 0; i < 21; i += 1) await client.widgets.listWidgets();
    expect(await requestsDuring(() => client.widgets.listWidgets())).toHaveLength(2);
  });
});

describe('Idempotency-Key, for every route that declares it', () => {
  test('a new key is sent when the caller gives none, the same on every retry', async () => {
    const client = createWidgetsClient();
    server.script(unavailable, { status: 201, body: widget });

    const attempts = await requestsDuring(async () => {
      const created = await client.widgets.createWidget({
        body: { name: 'Sprocket', colour: 'blue' },
      });
      expect(created.status).toBe(201);
    });

    expect(attempts).toHaveLength(2);
    const [first, retry] = attempts.map((attempt) => attempt.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(retry).toBe(first);
  });

  test("the caller's key is sent as given, on every retry", async () => {
    const client = createWidgetsClient();
    server.script(unavailable, { status: 201, body: widget });

    const attempts = await requestsDuring(() =>
      client.widgets.createWidget({
        headers: { 'idempotency-key': 'caller-key-1' },
        body: { name: 'Sprocket', colour: 'blue' },
      }),
    );

    expect(attempts.map((attempt) => attempt.headers['idempotency-key'])).toEqual([
      'caller-key-1',
      'caller-key-1',
    ]);
  });

  test('each call has a key of its own', async () => {
    const client = createWidgetsClient();
    server.script({ status: 201, body: widget }, { status: 201, body: widget });

    const calls = await requestsDuring(async () => {
      await client.widgets.createWidget({ body: { name: 'One', colour: 'red' } });
      await client.widgets.createWidget({ body: { name: 'Two', colour: 'red' } });
    });

    const [first, second] = calls.map((call) => call.headers['idempotency-key']);
    expect(first).toEqual(expect.any(String));
    expect(second).not.toBe(first);
  });

  test('a route that declares none is sent none', async () => {
    const client = createWidgetsClient();
    server.script({ status: 200, body: [] }, { status: 200, body: widget }, { status: 204 });

    const calls = await requestsDuring(async () => {
      await client.widgets.listWidgets();
      await client.widgets.updateWidget({ params: { widgetId: 7 }, body: { name: 'Cog' } });
      await client.widgets.deleteWidget({ params: { widgetId: 7 } });
    });

    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call.headers).not.toHaveProperty('idempotency-key');
  });
});
