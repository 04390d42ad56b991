/**
 * The rate-limit decision, written down once as cases: sequences of requests and what each must
 * get. Every implementation runs the same cases (the rules' own, over a map; the mock's limiter;
 * the server's in-process store and its Redis store's Lua), so that a rule changed in one and not
 * in the others fails there. Plain data: nothing here decides anything.
 */
import { ANONYMOUS_QUOTA, type Quota } from '../plans.js';
import { type Admission, BAN_MS } from './rate-limit-decision.js';
import {
  type RateLimitHeaders,
  rateLimitHeaders,
  retryAfterSeconds,
} from './rate-limit-headers.js';
import { DAY_MS, MINUTE_MS } from './rate-limit-windows.js';

/**
 * What one request must get: its admission, and where the case says so the headers of its
 * binding window and its Retry-After (whole seconds, as retryAfterSeconds() gives them).
 */
export interface ExpectedDecision extends Admission {
  headers?: RateLimitHeaders;
  retryAfterSeconds?: number;
}

export interface SubjectRequest {
  subject: string;
  quota: Quota;
}

/** One turn of the event loop: its requests handed to admit() in one call, in this order. */
export interface AdmitStep {
  admit: readonly SubjectRequest[];
  atMs: number;
  decisions: readonly ExpectedDecision[];
}

/** A look at a subject's state that neither counts the request nor tallies a rejection. */
export interface PeekStep {
  peek: SubjectRequest;
  atMs: number;
  decision: ExpectedDecision;
}

export type DecisionStep = AdmitStep | PeekStep;

/** Counts a subject starts a case with, as earlier requests in the windows of `atMs` left them. */
export interface StartingCounts {
  subject: string;
  atMs: number;
  minuteUsed: number;
  dayUsed: number;
}

export interface DecisionCase {
  name: string;
  startingCounts?: readonly StartingCounts[];
  steps: readonly DecisionStep[];
}

const LARGEST = Number.MAX_SAFE_INTEGER;

/** 2026-03-10 12:00:00 UTC: the start of a minute, half a day before the end of its day. */
const NOON = Date.UTC(2026, 2, 10, 12, 0, 0);
const NEXT_MINUTE = NOON + MINUTE_MS;
const MIDNIGHT = Date.UTC(2026, 2, 11, 0, 0, 0);

function headers(limit: number, remaining: number, resetsAtMs: number): RateLimitHeaders {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(resetsAtMs / 1000),
  };
}

type Extras = Pick<ExpectedDecision, 'headers' | 'retryAfterSeconds'>;

const allowed = (minuteUsed: number, dayUsed: number, extras: Extras = {}): ExpectedDecision => ({
  outcome: 'allowed',
  minuteUsed,
  dayUsed,
  ...extras,
});

const limited = (minuteUsed: number, dayUsed: number, extras: Extras = {}): ExpectedDecision => ({
  outcome: 'limited',
  minuteUsed,
  dayUsed,
  ...extras,
});

const banned = (
  minuteUsed: number,
  dayUsed: number,
  bannedUntilMs: number,
  extras: Extras = {},
): ExpectedDecision => ({ outcome: 'banned', minuteUsed, dayUsed, bannedUntilMs, ...extras });

const times = <T>(count: number, item: T): T[] => Array.from({ length: count }, () => item);

/** `count` allowed requests in a row, counting up from the counts before them. */
const allowedRun = (count: number, minuteBefore = 0, dayBefore = minuteBefore) =>
  Array.from({ length: count }, (_, i) => allowed(minuteBefore + i + 1, dayBefore + i + 1));

/** The same requests, each in a turn of its own: one admit() call each. */
function oneTurnEach(step: AdmitStep): AdmitStep[] {
  return step.admit.map((request, i) => ({
    admit: [request],
    atMs: step.atMs,
    decisions: [step.decisions[i] as ExpectedDecision],
  }));
}

/** Five a minute: ten rejections in a minute are allowed, the eleventh earns a ban. */
const FIVE_A_MINUTE: Quota = { perMinute: 5, perDay: 100 };
const BURST_AT = NOON + 30_000;
/** Twenty requests of one subject: the quota, then rejections, then the ban they earn. */
const BURST: AdmitStep = {
  admit: times(20, { subject: 'key:burst', quota: FIVE_A_MINUTE }),
  atMs: BURST_AT,
  decisions: [
    ...allowedRun(5),
    ...times(10, limited(5, 5, { headers: headers(5, 0, NEXT_MINUTE), retryAfterSeconds: 30 })),
    // The rejection that crosses the threshold is still only limited.
    limited(5, 5),
    ...times(
      4,
      banned(5, 5, BURST_AT + BAN_MS, {
        headers: headers(5, 0, NEXT_MINUTE),
        retryAfterSeconds: 15 * 60,
      }),
    ),
  ],
};
/** A second later: still banned, the ban neither counted against nor extended. */
const AFTER_BURST: AdmitStep = {
  admit: [{ subject: 'key:burst', quota: FIVE_A_MINUTE }],
  atMs: BURST_AT + 1_000,
  decisions: [
    banned(5, 5, BURST_AT + BAN_MS, {
      headers: headers(5, 0, NEXT_MINUTE),
      retryAfterSeconds: 15 * 60 - 1,
    }),
  ],
};

const ip = { subject: 'ip:198.51.100.7', quota: ANONYMOUS_QUOTA };
const keyOnIp = { subject: 'key:key_from-198.51.100.7', quota: ANONYMOUS_QUOTA };
/** The Free plan's quota spent, then its 61 rejections: more than max(10, 60), so a ban. */
const spentAndBanned = (request: SubjectRequest, atMs: number): AdmitStep => ({
  admit: times(60 + 61, request),
  atMs,
  decisions: [...allowedRun(60), ...times(61, limited(60, 60))],
});

const TWELVE_A_MINUTE: Quota = { perMinute: 12, perDay: 1_000 };
const twelve = { subject: 'key:twelve', quota: TWELVE_A_MINUTE };

/** An enterprise key's numbers: far more than any test can spend, so its counts start high. */
const ENTERPRISE: Quota = { perMinute: 5_000_000, perDay: LARGEST };
const enterprise = { subject: 'key:enterprise', quota: ENTERPRISE };
const largest = { subject: 'key:largest', quota: { perMinute: LARGEST, perDay: LARGEST } };

export const RATE_LIMIT_DECISION_CASES: readonly DecisionCase[] = [
  {
    name: 'an allowed request counts once in each window; one over the minute is limited, not counted, and told when the minute ends',
    steps: [
      {
        admit: times(4, { subject: 'key:three', quota: { perMinute: 3, perDay: 100 } }),
        atMs: NOON + 45_500,
        decisions: [
          allowed(1, 1, { headers: headers(3, 2, NEXT_MINUTE) }),
          allowed(2, 2, { headers: headers(3, 1, NEXT_MINUTE) }),
          allowed(3, 3, { headers: headers(3, 0, NEXT_MINUTE) }),
          // 14.5 s to the next minute, rounded up to whole seconds.
          limited(3, 3, { headers: headers(3, 0, NEXT_MINUTE), retryAfterSeconds: 15 }),
        ],
      },
      {
        peek: { subject: 'key:three', quota: { perMinute: 3, perDay: 100 } },
        atMs: NOON + 45_500,
        decision: limited(3, 3),
      },
      {
        peek: { subject: 'key:unseen', quota: { perMinute: 3, perDay: 100 } },
        atMs: NOON + 45_500,
        decision: allowed(0, 0, { headers: headers(3, 3, NEXT_MINUTE) }),
      },
    ],
  },
  {
    name: 'the minute window rolls over at the UTC minute, and the day goes on counting',
    steps: [
      {
        admit: times(3, { subject: 'key:two', quota: { perMinute: 2, perDay: 100 } }),
        atMs: NEXT_MINUTE - 1,
        decisions: [
          allowed(1, 1, { headers: headers(2, 1, NEXT_MINUTE) }),
          allowed(2, 2, { headers: headers(2, 0, NEXT_MINUTE) }),
          // A millisecond left: Retry-After is at least 1.
          limited(2, 2, { headers: headers(2, 0, NEXT_MINUTE), retryAfterSeconds: 1 }),
        ],
      },
      {
        admit: [{ subject: 'key:two', quota: { perMinute: 2, perDay: 100 } }],
        atMs: NEXT_MINUTE,
        // The rejection was not counted: the day has used 3, not 4.
        decisions: [allowed(1, 3, { headers: headers(2, 1, NEXT_MINUTE + MINUTE_MS) })],
      },
    ],
  },
  {
    name: 'the day window rolls over at 00:00 UTC; while the day is spent, Retry-After waits for its end',
    steps: [
      {
        admit: times(3, { subject: 'key:day', quota: { perMinute: 100, perDay: 3 } }),
        atMs: NEXT_MINUTE - 1,
        decisions: [
          allowed(1, 1, { headers: headers(3, 2, MIDNIGHT) }),
          allowed(2, 2, { headers: headers(3, 1, MIDNIGHT) }),
          allowed(3, 3, { headers: headers(3, 0, MIDNIGHT) }),
        ],
      },
      {
        admit: [{ subject: 'key:day', quota: { perMinute: 100, perDay: 3 } }],
        atMs: NEXT_MINUTE,
        decisions: [
          limited(0, 3, {
            headers: headers(3, 0, MIDNIGHT),
            retryAfterSeconds: (MIDNIGHT - NEXT_MINUTE) / 1000,
          }),
        ],
      },
      {
        admit: [{ subject: 'key:day', quota: { perMinute: 100, perDay: 3 } }],
        atMs: MIDNIGHT - 1,
        decisions: [limited(0, 3, { headers: headers(3, 0, MIDNIGHT), retryAfterSeconds: 1 })],
      },
      {
        admit: [{ subject: 'key:day', quota: { perMinute: 100, perDay: 3 } }],
        atMs: MIDNIGHT,
        decisions: [allowed(1, 1, { headers: headers(3, 2, MIDNIGHT + DAY_MS) })],
      },
    ],
  },
  {
    name: 'the headers describe the window with fewer requests remaining, the minute on a tie',
    steps: [
      {
        admit: [
          { subject: 'key:day-bound', quota: { perMinute: 50, perDay: 10 } },
          { subject: 'key:tie', quota: { perMinute: 10, perDay: 10 } },
        ],
        atMs: NOON,
        decisions: [
          allowed(1, 1, { headers: headers(10, 9, MIDNIGHT) }),
          allowed(1, 1, { headers: headers(10, 9, NEXT_MINUTE) }),
        ],
      },
    ],
  },
  {
    name: 'an exhausted window binds, the one that resets last when both are, and Retry-After waits for it',
    steps: [
      {
        admit: times(3, { subject: 'key:minute-spent', quota: { perMinute: 2, perDay: 1_000 } }),
        atMs: NOON,
        decisions: [
          allowed(1, 1, { headers: headers(2, 1, NEXT_MINUTE) }),
          allowed(2, 2, { headers: headers(2, 0, NEXT_MINUTE) }),
          limited(2, 2, { headers: headers(2, 0, NEXT_MINUTE), retryAfterSeconds: 60 }),
        ],
      },
      {
        admit: times(3, { subject: 'key:both-spent', quota: { perMinute: 2, perDay: 2 } }),
        atMs: NOON,
        decisions: [
          allowed(1, 1, { headers: headers(2, 1, NEXT_MINUTE) }),
          allowed(2, 2, { headers: headers(2, 0, MIDNIGHT) }),
          limited(2, 2, {
            headers: headers(2, 0, MIDNIGHT),
            retryAfterSeconds: (MIDNIGHT - NOON) / 1000,
          }),
        ],
      },
    ],
  },
  {
    name: 'more than max(10, per minute) rejections in one minute ban for BAN_MS, in one turn; banned requests neither count nor extend the ban',
    steps: [BURST, AFTER_BURST],
  },
  {
    name: 'the same requests one turn each are decided as in one turn',
    steps: [...oneTurnEach(BURST), AFTER_BURST],
  },
  {
    name: 'the ban threshold is the per-minute limit when that is above 10; a peek tallies no rejection',
    steps: [
      { admit: times(12, twelve), atMs: NOON, decisions: allowedRun(12) },
      { admit: times(12, twelve), atMs: NOON, decisions: times(12, limited(12, 12)) },
      { peek: twelve, atMs: NOON, decision: limited(12, 12) },
      { peek: twelve, atMs: NOON, decision: limited(12, 12) },
      // The thirteenth rejection crosses the threshold, and is still limited.
      { admit: [twelve], atMs: NOON, decisions: [limited(12, 12)] },
      { admit: [twelve], atMs: NOON, decisions: [banned(12, 12, NOON + BAN_MS)] },
      { peek: twelve, atMs: NOON, decision: banned(12, 12, NOON + BAN_MS) },
    ],
  },
  {
    name: 'rejections are tallied per UTC minute: a new minute starts the tally again',
    steps: [
      {
        admit: times(15, { subject: 'key:five', quota: FIVE_A_MINUTE }),
        atMs: NOON,
        decisions: [...allowedRun(5), ...times(10, limited(5, 5))],
      },
      {
        admit: times(15, { subject: 'key:five', quota: FIVE_A_MINUTE }),
        atMs: NEXT_MINUTE,
        decisions: [...allowedRun(5, 0, 5), ...times(10, limited(5, 10))],
      },
      {
        admit: times(2, { subject: 'key:five', quota: FIVE_A_MINUTE }),
        atMs: NEXT_MINUTE,
        decisions: [limited(5, 10), banned(5, 10, NEXT_MINUTE + BAN_MS)],
      },
    ],
  },
  {
    name: 'a ban outlives the minute it was earned in, ends exactly BAN_MS later, and the day still counts after it',
    steps: [
      spentAndBanned(ip, BURST_AT),
      {
        admit: [ip],
        atMs: BURST_AT,
        decisions: [
          banned(60, 60, BURST_AT + BAN_MS, {
            headers: headers(60, 0, NEXT_MINUTE),
            retryAfterSeconds: 15 * 60,
          }),
        ],
      },
      {
        // In a later minute the headers describe that minute, unused; Retry-After says when the
        // ban ends.
        admit: [ip],
        atMs: NEXT_MINUTE,
        decisions: [
          banned(0, 60, BURST_AT + BAN_MS, {
            headers: headers(60, 60, NEXT_MINUTE + MINUTE_MS),
            retryAfterSeconds: (BURST_AT + BAN_MS - NEXT_MINUTE) / 1000,
          }),
        ],
      },
      {
        admit: [ip],
        atMs: BURST_AT + BAN_MS - 1,
        decisions: [banned(0, 60, BURST_AT + BAN_MS, { retryAfterSeconds: 1 })],
      },
      { admit: [ip], atMs: BURST_AT + BAN_MS, decisions: [allowed(1, 61)] },
      { admit: [ip], atMs: BURST_AT + DAY_MS, decisions: [allowed(1, 1)] },
    ],
  },
  {
    name: "a key and an IP are counted apart: the IP's ban does not hold the key",
    steps: [
      spentAndBanned(ip, NOON),
      {
        admit: [ip, keyOnIp, ip, keyOnIp],
        atMs: NOON + 1,
        decisions: [
          banned(60, 60, NOON + BAN_MS),
          allowed(1, 1),
          banned(60, 60, NOON + BAN_MS),
          allowed(2, 2),
        ],
      },
      { peek: keyOnIp, atMs: NOON + 1, decision: allowed(2, 2) },
    ],
  },
  {
    name: 'several subjects interleaved in one turn: each request sees the counts the ones before it left',
    steps: [
      {
        admit: ['key:a', 'key:b', 'key:a', 'key:a', 'key:b'].map((subject) => ({
          subject,
          quota: { perMinute: 2, perDay: 100 },
        })),
        atMs: NOON + 30_000,
        decisions: [allowed(1, 1), allowed(1, 1), allowed(2, 2), limited(2, 2), allowed(2, 2)],
      },
      {
        admit: [
          { subject: 'key:c', quota: { perMinute: 1, perDay: 100 } },
          { subject: 'ip:203.0.113.1', quota: { perMinute: 2, perDay: 2 } },
          { subject: 'key:c', quota: { perMinute: 1, perDay: 100 } },
          { subject: 'ip:203.0.113.1', quota: { perMinute: 2, perDay: 2 } },
          { subject: 'ip:203.0.113.1', quota: { perMinute: 2, perDay: 2 } },
        ],
        atMs: NOON + 30_000,
        decisions: [allowed(1, 1), allowed(1, 1), limited(1, 1), allowed(2, 2), limited(2, 2)],
      },
    ],
  },
  {
    name: 'enterprise numbers, 5,000,000 a minute and 2^53 − 1 a day, are held exactly',
    startingCounts: [
      { subject: enterprise.subject, atMs: BURST_AT, minuteUsed: 4_999_999, dayUsed: LARGEST - 2 },
    ],
    steps: [
      {
        admit: [{ subject: 'key:enterprise-new', quota: ENTERPRISE }],
        atMs: BURST_AT,
        decisions: [allowed(1, 1, { headers: headers(5_000_000, 4_999_999, NEXT_MINUTE) })],
      },
      {
        admit: [enterprise, enterprise],
        atMs: BURST_AT,
        decisions: [
          allowed(5_000_000, LARGEST - 1, { headers: headers(5_000_000, 0, NEXT_MINUTE) }),
          limited(5_000_000, LARGEST - 1, {
            headers: headers(5_000_000, 0, NEXT_MINUTE),
            retryAfterSeconds: 30,
          }),
        ],
      },
      {
        admit: [enterprise, enterprise],
        atMs: NEXT_MINUTE,
        decisions: [
          allowed(1, LARGEST, { headers: headers(LARGEST, 0, MIDNIGHT) }),
          limited(1, LARGEST, {
            headers: headers(LARGEST, 0, MIDNIGHT),
            retryAfterSeconds: (MIDNIGHT - NEXT_MINUTE) / 1000,
          }),
        ],
      },
      { peek: enterprise, atMs: NEXT_MINUTE, decision: limited(1, LARGEST) },
    ],
  },
  {
    name: 'limits of 2^53 − 1 in both windows: the last request within them is allowed, the next limited',
    startingCounts: [
      { subject: largest.subject, atMs: BURST_AT, minuteUsed: LARGEST - 1, dayUsed: LARGEST - 1 },
    ],
    steps: [
      {
        admit: [largest, largest],
        atMs: BURST_AT,
        decisions: [
          allowed(LARGEST, LARGEST, { headers: headers(LARGEST, 0, MIDNIGHT) }),
          limited(LARGEST, LARGEST),
        ],
      },
      { peek: largest, atMs: BURST_AT, decision: limited(LARGEST, LARGEST) },
    ],
  },
];

/**
 * What an implementation answered, told in the terms `expected` is told in: the admission, and
 * the headers and Retry-After where `expected` has them.
 */
export function decisionAsExpected(
  admission: Admission,
  expected: ExpectedDecision,
  { quota }: SubjectRequest,
  atMs: number,
): ExpectedDecision {
  return {
    ...admission,
    ...(expected.headers && { headers: rateLimitHeaders(admission, quota, atMs) }),
    ...(expected.retryAfterSeconds !== undefined && {
      retryAfterSeconds: retryAfterSeconds(admission, quota, atMs),
    }),
  };
}
