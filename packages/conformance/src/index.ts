export { curlCommand } from './http/curl.js';
export type {
  Credential,
  RecordedRequest,
  RecordedResponse,
  RequestBody,
} from './http/exchange.js';
export { type ConformanceOptions, PLAN_LIMITS, type Plan } from './options.js';
export { formatReport } from './report.js';
export {
  type ConformanceReport,
  type RuleOutcome,
  type RuleReport,
  runConformance,
} from './run.js';
