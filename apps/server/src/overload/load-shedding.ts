import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_MESSAGES } from '@animal-store/contract';
import type { Request } from 'express';
import { holdUnread, letRead } from '../departures/connection-reading.js';
import { ApiError } from '../http/api-error.js';
import { API_BROWSER_HEADERS } from '../http/browser-policy.js';
import { requestIdFor } from '../http/request-id.js';
import { HEALTH_PATH, READY_PATH } from '../operations/health.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';

/** Why a request was shed, as metrics label it. */
export type ShedReason = 'waited_too_long';

/** How long a request beyond the limit may wait for room by default (ms): well within a second. */
export const DEFAULT_MAX_WAIT_MS = 500;

/** Seconds a shed client is told to wait: enough for the work in the server to drain. */
const RETRY_AFTER_SECONDS = 1;

/** Shedding is over once this long has passed without a request shed (ms). */
const QUIET_MS = 1_000;

/** An `Authorization` header longer than any bearer key of ours. */
const LONGEST_CREDENTIAL = 80;

/** The Error body of every shed request, made once; the balancer's own 503 has it too. */
export const BUSY_BODY = Buffer.from(JSON.stringify(new ApiError(ERROR_MESSAGES.busy).toBody()));

/** The headers of every shed request's answer, as name, value, name, value… */
const BUSY_HEADERS: readonly string[] = [
  ...API_BROWSER_HEADERS.flat(),
  'Retry-After',
  String(RETRY_AFTER_SECONDS),
  'Content-Type',
  'application/json; charset=utf-8',
  'Content-Length',
  String(BUSY_BODY.length),
];

/** What a page on an allowed origin may read of a shed request's answer: all it carries. */
const BUSY_EXPOSED_HEADERS =
  'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id';

/** Marks a response whose request load shedding counts in the server. */
const ADMITTED = Symbol('counted in the server by load shedding');

type CountedResponse = ServerResponse & { [ADMITTED]?: boolean };

/** How many of a connection's requests wait in the lines. */
const WAITING_HERE = Symbol('requests of this connection waiting');

type WaitingConnection = Socket & { [WAITING_HERE]?: number };

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A request waiting for room, and when it began to wait. */
interface Waiting {
  req: Request;
  res: ServerResponse;
  since: number;
}

/** What is never shed: the probes, which must answer whatever the load, and CORS preflights. */
function isExempt(req: IncomingMessage): boolean {
  if (req.method === 'OPTIONS') return true;
  const url = req.url ?? '';
  const path = url.includes('?') ? url.slice(0, url.indexOf('?')) : url;
  return path === HEALTH_PATH || path === READY_PATH;
}

/**
 * Whom a request is fair to: the credential it carries, as sent (looking it up would be
 * database work), else its client address. Each is counted only while in the server.
 */
function subjectOf(req: Request): string {
  const { authorization } = req.headers;
  return authorization !== undefined && authorization.length <= LONGEST_CREDENTIAL
    ? authorization
    : (req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

/** The client gave up on a request still waiting: nobody is left to answer. */
function abandoned({ req, res }: Waiting): boolean {
  return res.writableEnded || req.socket.destroyed;
}

export interface LoadSheddingDeps {
  limit: ConcurrencyLimit;
  /** How long a request beyond the limit may wait for room before it is shed (ms). */
  maxWaitMs: number;
  /** An IP's rate-limit headers as they stand, neither counting nor refusing. */
  standingHeaders: (clientAddress: string) => Record<string, string>;
  /** Browser origins allowed to read our responses (CORS). */
  corsOrigins: readonly string[];
  /** Told of each request shed. */
  onShed: (reason: ShedReason) => void;
  /** Told when shedding begins, and when it ends with how many were shed meanwhile. */
  onShedding: (
    state: { shedding: true } | { shedding: false; shed: number; forMs: number },
  ) => void;
  /** Monotonic milliseconds. */
  now: () => number;
}

/**
 * Adaptive admission, the first thing a request meets once Node has parsed it: the server keeps
 * the requests in it within a limit learned from their latency (concurrency-limit.ts). A request
 * beyond it waits, untouched, for room; one that has waited `maxWaitMs` is answered
 * `503 service_unavailable` with `Retry-After`, before Express and any database or Redis work:
 * not even its key is looked up, and it is counted against nobody's rate limit.
 *
 * Waiting, rather than refusing at once, is what keeps a crowd from collapsing the server: a
 * client refused at once comes back at once, so refusing as fast as the server can brings as
 * many requests to refuse as it has CPU to refuse them, and the admitted ones starve (measured in
 * docs/performance.md). A request waiting costs nothing but the memory Node already holds for
 * its connection. The waiting requests are kept in one line per subject (the credential a request
 * carries, as sent, else its address) and the lines are served in turn, so one subject sending
 * most of the traffic waits longest, and is the one shed: it cannot starve the others.
 * Probes and CORS preflights never wait and are never shed.
 */
export function createLoadShedding(deps: LoadSheddingDeps) {
  const { limit, now, maxWaitMs } = deps;
  const allowedOrigins = new Set(deps.corsOrigins);
  const lines = new Map<string, Waiting[]>();
  let inFlight = 0;
  let waiting = 0;
  let sweeper: NodeJS.Timeout | undefined;
  let sheddingSince: number | undefined;
  let lastShedAt = 0;
  let shedMeanwhile = 0;

  function endSheddingIfQuiet(at: number) {
    if (sheddingSince === undefined || at - lastShedAt < QUIET_MS) return;
    deps.onShedding({ shedding: false, shed: shedMeanwhile, forMs: lastShedAt - sheddingSince });
    sheddingSince = undefined;
  }

  /**
   * The answer to a request shed, with what every answer carries, from parts made once. Its
   * headers go to Node in one `writeHead`, not one `setHeader` each: a shed costs about half a
   * served `get`, and this is what of it is ours (docs/performance.md).
   */
  function answerBusy(req: Request, res: ServerResponse) {
    const headers: string[] = [...BUSY_HEADERS];
    const origin = req.headers.origin;
    if (origin !== undefined && allowedOrigins.has(origin)) {
      headers.push('Access-Control-Allow-Origin', origin);
      headers.push('Access-Control-Expose-Headers', BUSY_EXPOSED_HEADERS, 'Vary', 'Origin');
    }
    const rateLimit = deps.standingHeaders(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    for (const name in rateLimit) headers.push(name, rateLimit[name] as string);
    headers.push('X-Request-Id', requestIdFor(req));
    res.writeHead(503, headers);
    res.end(BUSY_BODY);
  }

  function shed({ req, res }: Waiting, reason: ShedReason, at: number) {
    if (sheddingSince === undefined) {
      sheddingSince = at;
      shedMeanwhile = 0;
      deps.onShedding({ shedding: true });
    }
    lastShedAt = at;
    shedMeanwhile += 1;
    deps.onShed(reason);
    answerBusy(req, res);
  }

  function enter(req: IncomingMessage, res: ServerResponse, app: Handler) {
    inFlight += 1;
    (res as CountedResponse)[ADMITTED] = true;
    app(req, res);
  }

  /**
   * A connection with a second request waiting (a client pipelining into the line) is read no
   * further until none waits: its later requests could not be answered before these anyway
   * (HTTP/1.1 answers in order), and would otherwise all be parsed and held, however many it
   * sends. They stay in the kernel's buffers. A connection with one request at a time, as a crowd
   * of clients has, is never held: that costs it nothing.
   */
  function wait(request: Waiting) {
    const subject = subjectOf(request.req);
    const line = lines.get(subject);
    if (line === undefined) lines.set(subject, [request]);
    else line.push(request);
    waiting += 1;
    const connection = request.req.socket as WaitingConnection;
    const waitingHere = (connection[WAITING_HERE] ?? 0) + 1;
    connection[WAITING_HERE] = waitingHere;
    if (waitingHere > 1) holdUnread(connection);
    sweeper ??= setInterval(sweep, Math.min(100, Math.max(1, maxWaitMs / 4))).unref();
  }

  /** `request` has left its line; its connection is read again once none of its requests wait. */
  function leftLine(request: Waiting) {
    waiting -= 1;
    const connection = request.req.socket as WaitingConnection;
    const left = (connection[WAITING_HERE] ?? 1) - 1;
    connection[WAITING_HERE] = left;
    if (left === 0) letRead(connection);
  }

  /** The next request to admit: the first of the line whose turn it is, and that line's turn passes. */
  function nextWaiting(): Waiting | undefined {
    const first = lines.entries().next();
    if (first.done) return undefined;
    const [subject, line] = first.value;
    const next = line.shift() as Waiting;
    lines.delete(subject);
    if (line.length > 0) lines.set(subject, line);
    leftLine(next);
    return next;
  }

  /** Admits waiting requests while there is room, shedding those that waited too long. */
  function admitWaiting(app: Handler) {
    const at = now();
    while (inFlight < limit.value) {
      const next = nextWaiting();
      if (next === undefined) break;
      if (abandoned(next)) continue;
      if (at - next.since > maxWaitMs) shed(next, 'waited_too_long', at);
      else enter(next.req, next.res, app);
    }
  }

  /** Sheds the requests that have waited too long, though no room came for them. */
  function sweep() {
    const at = now();
    for (const [subject, line] of lines) {
      while (line.length > 0) {
        const head = line[0] as Waiting;
        if (!abandoned(head) && at - head.since <= maxWaitMs) break;
        line.shift();
        leftLine(head);
        if (!abandoned(head)) shed(head, 'waited_too_long', at);
      }
      if (line.length === 0) lines.delete(subject);
    }
    admitWaiting(admitted);
    if (waiting === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
    endSheddingIfQuiet(at);
  }

  let admitted: Handler = () => {};

  /**
   * `app` behind admission: a request enters it now if there is room and nobody is waiting,
   * else waits its turn. `req` is already an Express request (departures/express-born-messages).
   */
  function admitting(app: Handler): Handler {
    admitted = app;
    return (req, res) => {
      (res as CountedResponse)[ADMITTED] = false;
      if (isExempt(req)) return app(req, res);
      if (inFlight < limit.value && waiting === 0) return enter(req, res, app);
      limit.reached();
      wait({ req: req as Request, res, since: now() });
    };
  }

  /** `res` is finished, or its connection closed, `elapsedMs` after it entered the app. */
  function finished(res: ServerResponse, elapsedMs: number): void {
    const counted = res as CountedResponse;
    if (counted[ADMITTED] !== true) return;
    counted[ADMITTED] = false;
    const at = now();
    limit.sample(elapsedMs, at, inFlight);
    inFlight -= 1;
    if (waiting > 0) admitWaiting(admitted);
    endSheddingIfQuiet(at);
  }

  return { admitting, finished, inFlight: () => inFlight, waiting: () => waiting };
}

export type LoadShedding = ReturnType<typeof createLoadShedding>;
