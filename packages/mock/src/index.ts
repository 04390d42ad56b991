/** The animals a mock with no seed of its own serves, as `pnpm dev` seeds them. */
export { DEMO_PETS } from '@animal-store/contract/examples';
export type { MockKeyring, MockKeys, NewMockKey } from './api-keys.js';
export type { AnimalStoreMock, MockConnection } from './api-mock.js';
export { type MockClock, manualClock, systemClock } from './clock.js';
export { ENTERPRISE_QUOTA, PLAN_QUOTAS, type Plan, type Quota } from './limits.js';
export type { Misbehaviour } from './misbehaviour.js';
export { createMock } from './mock.js';
export type { MockOptions } from './mock-options.js';
export { type MockServer, type MockServerOptions, startMockServer } from './node-server.js';
