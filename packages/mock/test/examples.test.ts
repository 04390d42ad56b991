/**
 * Each operation's examples (`@animal-store/contract/examples`), the statement of what it does
 * that the server and the conformance check are held to as well, against the mock over HTTP:
 * v1's, and the fixture contract's on a mock serving it with no edit of the mock's own.
 */
import {
  contractExampleCases,
  type ExampleCase,
  runExample,
} from '@animal-store/contract/examples';
import { fixtureExampleCases } from '@animal-store/fixture-contract/examples';
import { exampleTransport } from '@animal-store/server/testing/example-transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiMock } from '../src/api-mock.js';
import { manualClock } from '../src/clock.js';
import { type MockServer, serveMock, startMockServer } from '../src/node-server.js';
import { widgetsApi } from './support/widgets-api.js';

/** Enough for every example in one minute of the mock's clock, which stands still. */
const ROOMY = { perMinute: 10_000, perDay: 100_000 };

function examplesAgainst(start: () => Promise<MockServer>, cases: () => ExampleCase[]) {
  let server: MockServer;
  let apiKey: string;
  beforeAll(async () => {
    server = await start();
    apiKey = server.mock.keys.create(ROOMY);
  });
  afterAll(() => server.close());

  for (const example of cases()) {
    it(example.title, async () => {
      const transport = exampleTransport({ baseUrl: server.url, apiKey });
      const { problems } = await runExample(example, transport);
      expect(problems).toEqual([]);
    });
  }
}

describe.concurrent('the examples of every v1 operation', () => {
  examplesAgainst(() => startMockServer({ clock: manualClock() }), contractExampleCases);
});

describe.concurrent("the fixture contract's examples, on a mock serving it", () => {
  examplesAgainst(
    () => serveMock(createApiMock(widgetsApi, { clock: manualClock() }), {}),
    fixtureExampleCases,
  );
});
