/**
 * Each operation's examples (`@animal-store/contract/examples`), the one statement of what it
 * does, against the server on this run's database: the mock and the conformance check are held
 * to the same examples.
 */
import { contractExampleCases, runExample } from '@animal-store/contract/examples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleTransport } from '../testing/example-transport.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe.concurrent('the examples of every operation', () => {
  for (const example of contractExampleCases()) {
    it(example.title, async () => {
      const { problems } = await runExample(example, exampleTransport(server));
      expect(problems).toEqual([]);
    });
  }
});
