import type { Writable } from 'node:stream';
import {
  type Admission,
  BAN_MS,
  banThreshold,
  dayWindow,
  minuteWindow,
  standingOf,
} from '@animal-store/contract/rules';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { NO_TRACE, TRACING_OFF, type Tracing } from '../tracing/tracing.js';
import { MemoryRateLimitStore, type MemoryStoreOptions } from './memory-store.js';
import type { AdmissionRequest, RateLimitStore } from './rate-limit-store.js';

/**
 * The same decisions as `admitRequest` of @animal-store/contract/rules (which the in-process
 * store and the mock run), made atomically inside Redis so that every instance sharing it counts
 * against one set of windows: `count` requests of one subject, in order, each seeing the counts
 * the ones before it left. This is the one place the decision is written a second time: a script
 * runs inside Redis and cannot import JavaScript, and a decision made in JavaScript between a
 * read and a write would let two instances both take the last request of a window. Its numbers
 * (the windows' ends, the ban's threshold and length) are the shared rules', passed in ARGV, and
 * the shared table of cases (RATE_LIMIT_DECISION_CASES) holds its decisions to theirs
 * (test/database-independent/rate-limit-decisions.test.ts). Expiry is relative to the server's
 * clock (a key outlives its window by a second), so Redis's own clock never decides a window.
 * KEYS: minute count, day count, minute rejections, ban.
 * ARGV: per minute, per day, ban threshold, now (ms), minute end (ms), day end (ms), ban length
 * (ms), count.
 * Replies: outcome, minute count, day count and ban end (0 when not banned), per request.
 */
const ADMIT_SCRIPT = `
local perMinute, perDay, threshold = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now, minuteEnd, dayEnd, banMs = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local count = tonumber(ARGV[8])
local minuteUsed = tonumber(redis.call('GET', KEYS[1]) or '0')
local dayUsed = tonumber(redis.call('GET', KEYS[2]) or '0')
local rejections = tonumber(redis.call('GET', KEYS[3]) or '0')
local bannedUntil = tonumber(redis.call('GET', KEYS[4]) or '0')
local allowed, rejected, banBegan = 0, 0, false
local replies = {}
for i = 1, count do
  if bannedUntil > now then
    table.insert(replies, 'banned')
    table.insert(replies, minuteUsed)
    table.insert(replies, dayUsed)
    table.insert(replies, bannedUntil)
  else
    if minuteUsed < perMinute and dayUsed < perDay then
      minuteUsed, dayUsed, allowed = minuteUsed + 1, dayUsed + 1, allowed + 1
      table.insert(replies, 'allowed')
    else
      rejections, rejected = rejections + 1, rejected + 1
      if rejections > threshold then
        bannedUntil, banBegan = now + banMs, true
      end
      table.insert(replies, 'limited')
    end
    table.insert(replies, minuteUsed)
    table.insert(replies, dayUsed)
    table.insert(replies, 0)
  end
end
if allowed > 0 then
  redis.call('INCRBY', KEYS[1], allowed)
  redis.call('PEXPIRE', KEYS[1], minuteEnd - now + 1000)
  redis.call('INCRBY', KEYS[2], allowed)
  redis.call('PEXPIRE', KEYS[2], dayEnd - now + 1000)
end
if rejected > 0 then
  redis.call('INCRBY', KEYS[3], rejected)
  redis.call('PEXPIRE', KEYS[3], minuteEnd - now + 1000)
end
if banBegan then
  redis.call('SET', KEYS[4], bannedUntil, 'PX', banMs)
end
return replies
`;

/** Four replies per request: outcome, minute count, day count, ban end. */
type ScriptReply = Array<Admission['outcome'] | number>;
const REPLIES_PER_REQUEST = 4;

/** ioredis sends the script once, then calls it by its SHA (EVALSHA). */
type RedisWithAdmit = Redis & {
  admitRequests(...keysThenArgs: Array<string | number>): Promise<ScriptReply>;
};

/**
 * The positions of `requests`, grouped by subject, quota and windows: what one script call can
 * decide. In order of first appearance, each group in the order its requests came.
 */
function subjectGroups(requests: readonly AdmissionRequest[]): number[][] {
  const groups = new Map<string, number[]>();
  requests.forEach(({ subject, quota, nowMs }, index) => {
    const key = `${subject} ${quota.perMinute} ${quota.perDay} ${minuteWindow(nowMs).index} ${dayWindow(nowMs).index}`;
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  });
  return [...groups.values()];
}

function admissionAt(replies: ScriptReply, index: number): Admission {
  const at = index * REPLIES_PER_REQUEST;
  const outcome = replies[at] as Admission['outcome'];
  const minuteUsed = replies[at + 1] as number;
  const dayUsed = replies[at + 2] as number;
  return outcome === 'banned'
    ? { outcome, minuteUsed, dayUsed, bannedUntilMs: replies[at + 3] as number }
    : { outcome, minuteUsed, dayUsed };
}

/** A subject's minute count, day count, minute rejections and ban, for the windows of `nowMs`. */
function keysOf(subject: string, nowMs: number): [string, string, string, string] {
  // One hash tag per subject keeps its keys in one Redis Cluster slot.
  const prefix = `rl:{${subject}}`;
  const minute = minuteWindow(nowMs).index;
  return [
    `${prefix}:m:${minute}`,
    `${prefix}:d:${dayWindow(nowMs).index}`,
    `${prefix}:r:${minute}`,
    `${prefix}:ban`,
  ];
}

/**
 * Runs `issue`, which writes commands to `stream`, and sends all it wrote in one write before
 * returning: a socket write costs more than the script it carries. ioredis's auto-pipelining
 * also joins a turn's commands, but sends them from a `setImmediate`, a turn of the event loop
 * later, after that turn has read and parsed the next requests: the round trip to Redis then
 * waits on that work instead of overlapping it (docs/performance.md). It relies on ioredis
 * writing a command to its socket within the call that makes it, as it does once connected
 * (`admit` only comes here when it is); redis-rate-limits.test.ts fails when they leave later.
 * A command written while the connection is closing fails at once; each keeps its own deadline.
 */
function writtenTogether<T>(stream: Writable, issue: () => T): T {
  stream.cork();
  try {
    return issue();
  } finally {
    stream.uncork();
  }
}

/** How often to say that Redis is still away: once per outage, then at most every minute. */
const OUTAGE_LOG_INTERVAL_MS = 60_000;

/** After a failure, Redis is left alone this long, then tried again by one request. */
const RETRY_AFTER_FAILURE_MS = 1_000;

/** What every key this server writes to Redis starts with, unless REDIS_KEY_PREFIX says otherwise. */
export const DEFAULT_REDIS_KEY_PREFIX = 'animal-store:';

export interface RedisStoreOptions extends MemoryStoreOptions {
  /** Starts every key, so that deployments sharing one Redis keep their counters apart. */
  keyPrefix?: string;
  /** Most time to open a connection (ms). */
  connectTimeoutMs?: number;
  /** Most time any command may take (ms): past it, the request is counted in-process. */
  commandTimeoutMs?: number;
  /** Told of each request counted in-process because Redis did not answer. */
  onFallback?: () => void;
  /** Where each Redis command is recorded, in the traces of the requests it is sent for. */
  tracing?: Tracing;
}

/**
 * A command deadline well above Redis's answer time, so a busy event loop reading a prompt reply
 * late is not taken for a hung Redis (which would count requests in-process, and loosely).
 */
export const DEFAULT_REDIS_TIMEOUTS = { connectTimeoutMs: 1_000, commandTimeoutMs: 1_000 } as const;

/**
 * Counters in Redis, shared by every instance. While Redis is unreachable or hangs, the server
 * keeps answering, counting in this process, and goes back to Redis as soon as it answers again.
 * A breaker keeps a hung Redis from costing every request a deadline: after a failure, requests
 * count in-process at once, and a single request at a time tries Redis again a second later.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: RedisWithAdmit;
  readonly #fallback: MemoryRateLimitStore;
  readonly #logger: Logger;
  readonly #onFallback: () => void;
  readonly #tracing: Tracing;
  #outageLoggedAtMs: number | undefined;
  /** While in the future (monotonic ms), Redis is not tried; 0 while it works. */
  #retryAtMs = 0;
  #retrying = false;

  constructor(url: string, logger: Logger, options: RedisStoreOptions = {}) {
    this.#logger = logger;
    this.#fallback = new MemoryRateLimitStore(options);
    this.#onFallback = options.onFallback ?? (() => {});
    this.#tracing = options.tracing ?? TRACING_OFF;
    const { connectTimeoutMs, commandTimeoutMs } = { ...DEFAULT_REDIS_TIMEOUTS, ...options };
    const redis = new Redis(url, {
      keyPrefix: options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX,
      // Fail fast while disconnected instead of queueing: the fallback answers meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: connectTimeoutMs,
      commandTimeout: commandTimeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      // Not auto-pipelining: `admit` sends a turn's commands in one write itself, at once.
    });
    redis.defineCommand('admitRequests', { numberOfKeys: 4, lua: ADMIT_SCRIPT });
    this.#redis = redis as RedisWithAdmit;
    this.#redis.on('error', () => {
      // Reported through admit(); ioredis emits one of these per reconnect attempt.
    });
  }

  /**
   * Waits (up to `timeoutMs`) for the first connection, so a server that starts together with
   * its Redis does not count its first requests in-process. Resolves either way.
   */
  async connected(timeoutMs = 2_000): Promise<boolean> {
    if (this.#redis.status === 'ready') return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#redis.off('ready', onReady);
        resolve(false);
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#redis.once('ready', onReady);
    });
  }

  /** Whether Redis is counting right now: connected, and not paused after a failure. */
  get shared(): boolean {
    return this.#redis.status === 'ready' && this.#retryAtMs === 0;
  }

  async admit(requests: readonly AdmissionRequest[]): Promise<Admission[]> {
    const [first] = requests;
    if (!first) return [];
    if (!this.#mayTryRedis(first.nowMs)) return this.#admitInProcess(requests);
    const admissions: Admission[] = [];
    let failure: unknown;
    // Each subject's requests are decided in Redis, or, when that fails, in this process: never
    // both, so a request is never counted twice.
    const decisions = writtenTogether(this.#redis.stream, () =>
      subjectGroups(requests).map(async (indexes) => {
        const group = indexes.map((index) => requests[index] as AdmissionRequest);
        let decided: Admission[];
        try {
          decided = await this.#admitInRedis(group);
        } catch (error) {
          failure = error;
          decided = await this.#admitInProcess(group);
        }
        indexes.forEach((index, i) => {
          admissions[index] = decided[i] as Admission;
        });
      }),
    );
    await Promise.all(decisions);
    if (failure === undefined) this.#succeeded();
    else this.#failed(failure, first.nowMs);
    return admissions;
  }

  #admitInProcess(requests: readonly AdmissionRequest[]): Promise<Admission[]> {
    for (const _ of requests) this.#onFallback();
    return this.#fallback.admit(requests);
  }

  async peek(request: AdmissionRequest): Promise<Admission> {
    if (!this.#mayTryRedis(request.nowMs)) return this.#fallback.peek(request);
    try {
      const [minute, day, , ban] = keysOf(request.subject, request.nowMs);
      const [minuteUsed, dayUsed, bannedUntilMs] = await this.#tracing.redisCommand(
        [request.trace ?? NO_TRACE],
        'MGET',
        () => this.#redis.mget(minute, day, ban),
      );
      this.#succeeded();
      const admission = standingOf(
        {
          minuteUsed: Number(minuteUsed ?? 0),
          dayUsed: Number(dayUsed ?? 0),
          bannedUntilMs: Number(bannedUntilMs ?? 0),
        },
        request.quota,
        request.nowMs,
      );
      this.#fallback.observe(request.subject, request.nowMs, admission);
      return admission;
    } catch (error) {
      this.#failed(error, request.nowMs);
      return this.#fallback.peek(request);
    }
  }

  /**
   * This process's view: the counts Redis last gave it for the subject (or, while Redis is away,
   * what it counted itself).
   */
  standing(request: AdmissionRequest): Admission {
    return this.#fallback.standing(request);
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
    await this.#fallback.close();
  }

  /** Whether this request may use Redis: always while it works; after a failure, one at a time once the pause is over. */
  #mayTryRedis(nowMs: number): boolean {
    if (this.#redis.status !== 'ready') {
      this.#reportOutage(new Error(`the Redis connection is ${this.#redis.status}`), nowMs);
      return false;
    }
    if (this.#retryAtMs === 0) return true;
    if (this.#retrying || performance.now() < this.#retryAtMs) return false;
    this.#retrying = true;
    return true;
  }

  #succeeded() {
    this.#retrying = false;
    this.#retryAtMs = 0;
    if (this.#outageLoggedAtMs !== undefined) {
      this.#logger.info('Redis is back: rate-limit counters are shared again');
      this.#outageLoggedAtMs = undefined;
    }
  }

  #failed(error: unknown, nowMs: number) {
    this.#retrying = false;
    this.#retryAtMs = performance.now() + RETRY_AFTER_FAILURE_MS;
    // A command that timed out leaves a connection nobody answers on: start a fresh one.
    if (error instanceof Error && /timed out/i.test(error.message)) this.#redis.disconnect(true);
    this.#reportOutage(error, nowMs);
  }

  /**
   * Decides one subject's requests (of one quota, in the same windows) with one script call, in
   * the order they came, as one call each would. Under load most requests of a turn come with a
   * key that others in it carry too, and a call costs both processes far more than a decision
   * inside it; the calls for every subject of a turn leave in one write (`writtenTogether`). The
   * call is recorded in the trace of each request it decides.
   */
  async #admitInRedis(requests: readonly AdmissionRequest[]): Promise<Admission[]> {
    const { subject, quota, nowMs } = requests[0] as AdmissionRequest;
    const decidedFor = requests.map((request) => request.trace ?? NO_TRACE);
    const replies = await this.#tracing.redisCommand(decidedFor, 'EVALSHA', () =>
      this.#redis.admitRequests(
        ...keysOf(subject, nowMs),
        quota.perMinute,
        quota.perDay,
        banThreshold(quota),
        nowMs,
        minuteWindow(nowMs).endsAtMs,
        dayWindow(nowMs).endsAtMs,
        BAN_MS,
        requests.length,
      ),
    );
    const admissions = requests.map((_, index) => admissionAt(replies, index));
    this.#fallback.observe(subject, nowMs, admissions.at(-1) as Admission);
    return admissions;
  }

  #reportOutage(error: unknown, nowMs: number) {
    const last = this.#outageLoggedAtMs;
    if (last !== undefined && nowMs - last < OUTAGE_LOG_INTERVAL_MS) return;
    this.#outageLoggedAtMs = nowMs;
    this.#logger.warn(
      { err: error },
      'Redis is unreachable: counting rate limits in this process until it returns',
    );
  }
}
