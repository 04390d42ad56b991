import DataLoader from 'dataloader';
import type { Response } from 'express';
import { contextOf } from '../http/request-context.js';
import type { DatabaseCall, RequestTrace, Tracing } from '../tracing/tracing.js';
import { publishDispatch } from './diagnostics.js';

/** A store: plain async methods, one query each. */
// biome-ignore lint/suspicious/noExplicitAny: a method of any signature; callers keep its own.
type StoreMethod = (...args: any[]) => Promise<unknown>;

/** How the calls the requests of one turn make to one store method reach the database. */
export type Sharing =
  | { readonly kind: 'items'; readonly most: number }
  | { readonly kind: 'equal-calls' };

/**
 * The calls' items go in one call of at most `most` items (a statement binds only so many
 * values, or reads only so much), and each call gets the results of its own: for a method that
 * takes a list and answers one result per item, in their order (`insertPets(pets)`).
 */
export const mergeItems = (most = Number.POSITIVE_INFINITY): Sharing => ({ kind: 'items', most });

/** Calls with equal arguments share one call; different ones are made side by side. */
export const shareEqualCalls: Sharing = { kind: 'equal-calls' };

/** For each method of a store, how its calls are shared: alone unless named. */
export type SharingPlan<Store> = { readonly [Method in keyof Store]?: Sharing };

/** For each query of a store, how a trace names its database call (`SELECT pets`). */
export type QuerySummaries<Store> = { readonly [Method in keyof Store]?: DatabaseCall };

/** One call of a store method, for one request. */
interface Call {
  readonly trace: RequestTrace;
  /** The turn batch that admitted the request (batching/turn-batch.ts). */
  readonly turn: number;
  /** Whether this is the request's first call to the store. */
  readonly first: boolean;
}

/** One item (or one argument) of a call, as a DataLoader gathers them. */
interface Load extends Call {
  readonly item: unknown;
}

type MethodCall = (call: Call, args: unknown[]) => Promise<unknown>;

/** DataLoader fails the loads whose result is an Error, and only those. */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** The requests a shared call is made for, each once, to record it in each one's trace. */
const tracesOf = (loads: readonly Load[]) => [...new Set(loads.map(({ trace }) => trace))];

/** The turns of the requests whose first store call is among `loads`. */
const firstCallTurns = (loads: readonly Load[]) =>
  loads.filter(({ first }) => first).map(({ turn }) => turn);

interface MethodContext {
  store: string;
  method: string;
  query: DatabaseCall;
  tracing: Tracing;
}

function itemsCall(send: StoreMethod, most: number, context: MethodContext): MethodCall {
  const { store, method, query, tracing } = context;
  const loader = new DataLoader<Load, unknown>(
    (loads) => {
      publishDispatch(() => ({
        store,
        method,
        turns: firstCallTurns(loads),
        full: loads.length >= most,
      }));
      const items = loads.map(({ item }) => item);
      return tracing.databaseCall(tracesOf(loads), query, () => send(items)) as Promise<unknown[]>;
    },
    { cache: false, maxBatchSize: most },
  );
  return ({ trace, turn, first }, [items]) => {
    const list = items as readonly unknown[];
    if (list.length === 1) {
      return loader.load({ item: list[0], trace, turn, first }).then((result) => [result]);
    }
    return Promise.all(
      list.map((item, index) => loader.load({ item, trace, turn, first: first && index === 0 })),
    );
  };
}

/** A call made once for the loads of one batch that passed equal arguments. */
interface SharedCall {
  argument: unknown;
  traces: RequestTrace[];
  result?: Promise<unknown>;
}

function equalCallsCall(send: StoreMethod, context: MethodContext): MethodCall {
  const { store, method, query, tracing } = context;
  const loader = new DataLoader<Load, unknown>(
    (loads) => {
      publishDispatch(() => ({ store, method, turns: firstCallTurns(loads), full: false }));
      const calls = new Map<string, SharedCall>();
      const callOfLoad = loads.map(({ item, trace }) => {
        const key = JSON.stringify(item);
        let call = calls.get(key);
        if (!call) {
          call = { argument: item, traces: [] };
          calls.set(key, call);
        }
        call.traces.push(trace);
        return call;
      });
      // Each call fails on its own: one failing does not fail the loads of the others.
      for (const call of calls.values()) {
        call.result = tracing
          .databaseCall(call.traces, query, () => send(call.argument))
          .catch(asError);
      }
      return Promise.all(callOfLoad.map(({ result }) => result));
    },
    { cache: false },
  );
  return ({ trace, turn, first }, [argument]) =>
    loader.load({ item: argument, trace, turn, first });
}

function aloneCall(send: StoreMethod, { query, tracing }: MethodContext): MethodCall {
  return ({ trace }, args) => tracing.databaseCall([trace], query, () => send(...args));
}

interface StoreDescription<Store> {
  /** The store's name, for errors and diagnostics: `pets`. */
  name: string;
  store: Store;
  sharing: SharingPlan<Store>;
  queries: QuerySummaries<Store>;
  tracing: Tracing;
}

function summaryOf<Store>({ name, queries }: StoreDescription<Store>, method: string) {
  const query = queries[method as keyof Store];
  if (!query) throw new Error(`The ${name} store's ${method} has no query summary`);
  return query;
}

function methodCall<Store extends object>(
  description: StoreDescription<Store>,
  method: string,
  send: StoreMethod,
): MethodCall {
  const sharing = description.sharing[method as keyof Store];
  const context = {
    store: description.name,
    method,
    query: summaryOf(description, method),
    tracing: description.tracing,
  };
  if (sharing?.kind === 'items') return itemsCall(send, sharing.most, context);
  if (sharing?.kind === 'equal-calls') return equalCallsCall(send, context);
  return aloneCall(send, context);
}

/**
 * `store` as each request sees it: the same methods, whose calls the requests of one turn make
 * together share what `sharing` says, each recorded in the trace of every request it was made
 * for, as `queries` names it. Nothing is cached: a call is made after every call it serves was
 * asked for, so each request still reads what the database held after it asked.
 *
 * It relies on the turn invariant (docs/architecture.md, "The batching layer"): the
 * requests admitted together make their first calls in the same turn, so those calls meet.
 */
export function batchedStore<Store extends object>(
  description: StoreDescription<Store>,
): (res: Response) => Store {
  const methods = Object.entries(description.store as Record<string, StoreMethod>);
  for (const method of Object.keys(description.sharing)) {
    if (!(method in description.store)) {
      throw new Error(`The ${description.name} store has no method ${method} to share`);
    }
  }

  /** One request's store: what it needs to know of the request, and the store's methods. */
  class StoreOfRequest {
    readonly trace: RequestTrace;
    readonly turn: number;
    calledBefore = false;

    constructor(trace: RequestTrace, turn: number) {
      this.trace = trace;
      this.turn = turn;
    }
  }
  for (const [method, send] of methods) {
    const call = methodCall(description, method, send.bind(description.store));
    Object.defineProperty(StoreOfRequest.prototype, method, {
      value(this: StoreOfRequest, ...args: unknown[]) {
        const first = !this.calledBefore;
        this.calledBefore = true;
        return call({ trace: this.trace, turn: this.turn, first }, args);
      },
    });
  }
  return (res) => {
    const { trace, turn } = contextOf(res);
    return new StoreOfRequest(trace, turn) as unknown as Store;
  };
}
