export type { MockKeys } from './api-keys.js';
export { type MockClock, manualClock, systemClock } from './clock.js';
export { ENTERPRISE_QUOTA, PLAN_QUOTAS, type Plan, type Quota } from './limits.js';
export type { Misbehaviour } from './misbehaviour.js';
export {
  type AnimalStoreMock,
  createMock,
  type MockConnection,
  type MockOptions,
} from './mock.js';
export { type MockServer, type MockServerOptions, startMockServer } from './node-server.js';
export { DEMO_PETS } from './seed.js';
