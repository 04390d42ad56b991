/**
 * The mock as MSW v2 request handlers, for tests where the program under test calls fetch itself
 * (in Node with `msw/node`, in a browser with `msw/browser`).
 */
import { HttpResponse, http, type RequestHandler } from 'msw';
import type { AnimalStoreMock } from './api-mock.js';

export type { MockKeyring, MockKeys, NewMockKey } from './api-keys.js';
export type { AnimalStoreMock, MockConnection } from './api-mock.js';
export type { MockClock } from './clock.js';
export type { Misbehaviour } from './misbehaviour.js';

export interface MswHandlersOptions {
  /** The origin the program calls, e.g. `https://api.animal-store.example`; a `/v1` suffix is dropped. */
  readonly baseUrl: string;
}

/** Every request to `baseUrl` is answered by `mock`; a dropped connection is a network error. */
export function mswHandlers(
  mock: AnimalStoreMock,
  { baseUrl }: MswHandlersOptions,
): RequestHandler[] {
  const origin = new URL(baseUrl).origin;
  return [
    http.all(`${origin}/*`, async ({ request }) => {
      const response = await mock.handle(request);
      return response.type === 'error' ? HttpResponse.error() : response;
    }),
  ];
}
