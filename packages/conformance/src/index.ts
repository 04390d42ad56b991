export { ANIMAL_STORE_V1, type ApiUnderTest } from './api-under-test.js';
export type { RateLimitBudget } from './budget.js';
export { curlCommand } from './http/curl.js';
export type {
  RecordedRequest,
  RecordedResponse,
  RequestBody,
  RequestCredential,
} from './http/exchange.js';
export { type ConformanceOptions, PLAN_LIMITS, type Plan } from './options.js';
export type { RateLimitWait } from './pacing.js';
export { formatReport } from './report.js';
export {
  type ConformanceReport,
  type RuleOutcome,
  type RuleReport,
  runConformance,
} from './run.js';
