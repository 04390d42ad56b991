/**
 * `@animal-store/contract/rules`: the interface's rules that an implementation computes rather
 * than declares, written once for the server and the mock alike (docs/decisions/009). Each runs
 * in browsers as in Node: no Node module, no dependency, Web Crypto for randomness.
 */
export {
  API_KEY_PREFIX,
  apiKeyOf,
  couldBeApiKey,
  LONGEST_API_KEY_LENGTH,
  newApiKey,
} from './api-key.js';
export {
  canonicalJson,
  IDEMPOTENCY_KEY_LIFETIME_MS,
  type IdempotentAnswer,
  idempotentAnswer,
  isRemembered,
  type RememberedCreate,
  requestFingerprint,
} from './idempotency.js';
export {
  type PageCursorParts,
  pageCursorOf,
  pageCursorSignature,
  pageCursorSigningInput,
  readPageCursor,
  signaturesMatch,
} from './page-cursor.js';
export {
  type Admission,
  type AdmissionOutcome,
  admitRequest,
  BAN_MS,
  banThreshold,
  countsAt,
  type RateLimitCounts,
  standingOf,
} from './rate-limit-decision.js';
export {
  type AdmitStep,
  type DecisionCase,
  type DecisionStep,
  decisionAsExpected,
  type ExpectedDecision,
  type PeekStep,
  RATE_LIMIT_DECISION_CASES,
  type StartingCounts,
  type SubjectRequest,
} from './rate-limit-decision-cases.js';
export {
  type RateLimitHeaders,
  rateLimitHeaders,
  retryAfterSeconds,
} from './rate-limit-headers.js';
export { DAY_MS, dayWindow, MINUTE_MS, minuteWindow, type Window } from './rate-limit-windows.js';
