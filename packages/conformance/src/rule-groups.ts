import type { ApiUnderTest } from './api-under-test.js';
import type { RuleGroup } from './rule.js';
import { authenticationRules } from './rules/authentication.js';
import { crossOriginRules } from './rules/cross-origin.js';
import { deprecationRules } from './rules/deprecation.js';
import { documentRules } from './rules/documents.js';
import { edgeRules } from './rules/edges.js';
import { edgeExampleRules, exampleRules } from './rules/examples.js';
import { linkOriginRules } from './rules/link-origin.js';
import { pagingRules } from './rules/paging.js';
import { pagingUnderInsertsRules } from './rules/paging-under-inserts.js';
import { probeRules } from './rules/probes.js';
import { rateLimitRules, rateLimitSpendingRules } from './rules/rate-limit.js';
import { requestIdRules } from './rules/request-id.js';
import { routingRules } from './rules/routing.js';

/**
 * Every rule of a run against `api`, in the order they run; those stated for every operation walk
 * its contract. The operations' examples, some of which create pets, come
 * before the rules that page, so that with --allow-writes even an empty deployment has pages to
 * follow. The rules over every answer of the run (X-Request-Id, X-RateLimit-*) come after the
 * others but two: the requests at the edges of HTTP, which a proxy in front may answer itself,
 * come after them, and the one that drives the key to 429 last of all.
 */
export const ruleGroupsFor = (api: ApiUnderTest): readonly RuleGroup[] => [
  documentRules,
  probeRules,
  authenticationRules(api),
  exampleRules(api),
  pagingUnderInsertsRules,
  pagingRules,
  linkOriginRules,
  deprecationRules(api),
  routingRules(api),
  crossOriginRules(api),
  requestIdRules,
  rateLimitRules,
  edgeRules,
  edgeExampleRules(api),
  rateLimitSpendingRules,
];
