import type { RequestCredential } from './http/exchange.js';

/**
 * Whose rate limit a request is counted against (docs/interface.md, "Who is counted"): the key
 * under test's, or the calling IP's, on the Free plan's numbers. The probes are counted against
 * neither, and answer with the IP's standing.
 */
export type RateLimitBudget = 'key' | 'ip';

/** The documents: counted against the IP even with a key. */
const DOCUMENT_PATH = /\/(v1\/openapi\.json|docs)\b/;

/**
 * The budget whose standing a request's answer shows: the IP's for requests without a valid key
 * and for the documents, the key's otherwise. `credential` is the key when absent, as a rule's
 * request has it; `target` may be the path or the whole URL.
 */
export function budgetOf(request: {
  readonly credential?: RequestCredential;
  readonly target: string;
}): RateLimitBudget {
  const { credential = 'key', target } = request;
  return credential === 'key' && !DOCUMENT_PATH.test(target) ? 'key' : 'ip';
}
