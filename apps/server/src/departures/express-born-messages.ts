import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Response } from 'express';

const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * Express's `res.json` (`expressJson`), with the body sent as bytes. Express sets `Content-Type`
 * to JSON, then `res.send` parses it again (`content-type`'s parser, on every response) to add the
 * charset to a text body; a body of bytes keeps the type as it is set. A type set before is left
 * to Express, which adds the charset to it.
 */
function jsonAsBytes(expressJson: Response['json']) {
  return function json(this: Response, body: unknown): Response {
    if (this.hasHeader('Content-Type')) return expressJson.call(this, body);
    const text = JSON.stringify(body) as string | undefined;
    this.setHeader('Content-Type', JSON_UTF8);
    return this.send(text === undefined ? text : Buffer.from(text));
  };
}

/**
 * Node HTTP server options under which each request and response is made with the prototype
 * Express gives it.
 *
 * Express sets the prototype of every request and response it is handed (`Object.setPrototypeOf`
 * in its `expressInit`) to `app.request` and `app.response`. Node 20's V8 then gives each request
 * and response a hidden class of its own (of 100 requests in a row, no two shared one; Node 24's
 * shares one), so property accesses in Node's HTTP server, Express and all after them miss their
 * inline caches and take the slow path (docs/decisions/002-messages-born-with-express-prototypes.md
 * says what that cost). Here the classes Node makes them with extend its own,
 * their prototypes inherit from Express's and become the app's `request` and `response`, so
 * Express sets the prototype each already has, which changes nothing. Their `res.json` is
 * `jsonAsBytes`'s.
 */
export function expressBornMessages(app: Express) {
  class ExpressRequest extends IncomingMessage {}
  class ExpressResponse extends ServerResponse<ExpressRequest> {}
  // Express's own prototypes stay in the chain: `req.app`, `res.send` and the rest resolve as before.
  Object.setPrototypeOf(ExpressRequest.prototype, app.request);
  Object.setPrototypeOf(ExpressResponse.prototype, app.response);
  Object.assign(ExpressResponse.prototype, { json: jsonAsBytes(app.response.json) });
  Object.assign(app, { request: ExpressRequest.prototype, response: ExpressResponse.prototype });
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse };
}
