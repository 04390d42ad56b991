// @module-tag node-runtime: Express's and Node's request and response classes, which it departs from
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { expressBornMessages } from './express-born-messages.js';

let server: Server | undefined;

afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

/** Serves `app` through Node's HTTP server with `expressBornMessages`, on a free port. */
async function serve(app: express.Express): Promise<string> {
  server = createServer(expressBornMessages(app), app);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const JSON_UTF8 = 'application/json; charset=utf-8';

describe('expressBornMessages', () => {
  it('makes requests and responses with the prototypes Express gives them, so none is swapped', async () => {
    const app = express();
    const bornWith = new WeakMap<object, object | null>();
    const swapped: string[] = [];
    app.get('/pets/:id', (req, res) => {
      if (Object.getPrototypeOf(req) !== bornWith.get(req)) swapped.push('request');
      if (Object.getPrototypeOf(res) !== bornWith.get(res)) swapped.push('response');
      res.json({ swapped });
    });
    const origin = await serve(app);
    server?.prependListener('request', (req: IncomingMessage, res) => {
      bornWith.set(req, Object.getPrototypeOf(req));
      bornWith.set(res, Object.getPrototypeOf(res));
    });

    const response = await fetch(`${origin}/pets/7`);
    expect(await response.json()).toEqual({ swapped: [] });
  });

  it("keeps Express's request and response API", async () => {
    const app = express();
    app.set('title', 'pets');
    app.get('/pets/:id', (req, res) => {
      res
        .status(203)
        .set('X-Seen', req.get('x-asked'))
        .json({
          app: req.app === app && req.app.get('title'),
          id: req.params.id,
          query: req.query,
          path: req.path,
        });
    });
    const origin = await serve(app);

    const response = await fetch(`${origin}/pets/7?status=sold`, { headers: { 'X-Asked': 'yes' } });
    expect(response.status).toBe(203);
    expect(response.headers.get('x-seen')).toBe('yes');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      app: 'pets',
      id: '7',
      query: { status: 'sold' },
      path: '/pets/7',
    });
  });

  it("sends res.json's body as Express would, with Content-Type set once, not parsed again", async () => {
    const typesSet: unknown[] = [];
    const routes = (app: express.Express) => {
      app.get('/pet', (_req, res) => {
        const setHeader = res.setHeader.bind(res);
        res.setHeader = (name, value) => {
          if (name.toLowerCase() === 'content-type') typesSet.push(value);
          return setHeader(name, value);
        };
        res.status(201).json({ name: 'Ünïcödé 🐈', tags: [1, null] });
      });
      app.get('/problem', (_req, res) => res.type('application/problem+json').json({ n: 1 }));
      app.get('/nothing', (_req, res) => res.json(undefined));
      return app;
    };
    const plain = createServer(routes(express()));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const plainOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    const origin = await serve(routes(express()));

    const answers = async (base: string) => {
      const seen = [];
      for (const [path, method] of [
        ['/pet', 'GET'],
        ['/pet', 'HEAD'],
        ['/problem', 'GET'],
        ['/nothing', 'GET'],
      ] as const) {
        const res = await fetch(`${base}${path}`, { method });
        seen.push({
          status: res.status,
          type: res.headers.get('content-type'),
          length: res.headers.get('content-length'),
          body: await res.text(),
        });
      }
      return seen;
    };
    try {
      const expressAnswers = await answers(plainOrigin);
      typesSet.length = 0;
      expect(await answers(origin)).toEqual(expressAnswers);
      // Once for each answer of /pet (GET and HEAD); Express's own `res.json` sets it twice, the
      // second time after parsing the first.
      expect(typesSet).toEqual([JSON_UTF8, JSON_UTF8]);
    } finally {
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
