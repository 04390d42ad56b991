import type { Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { inOrder } from './in-order.js';

const req = {} as Request;
const res = {} as Response;

/** Runs `middleware` and resolves with what it handed on to `next`. */
function handedOn(middleware: RequestHandler): Promise<unknown[]> {
  return new Promise((resolve) => middleware(req, res, (...args: unknown[]) => resolve(args)));
}

describe('inOrder', () => {
  it('runs each handler in turn, waiting for the ones that go on later', async () => {
    const ran: string[] = [];
    const step =
      (name: string): RequestHandler =>
      (_req, _res, next) => {
        ran.push(name);
        next();
      };
    const later: RequestHandler = (_req, _res, next) => {
      ran.push('later');
      setTimeout(() => next(), 5);
    };
    expect(await handedOn(inOrder(step('a'), later, step('b')))).toEqual([undefined]);
    expect(ran).toEqual(['a', 'later', 'b']);
  });

  it('stops at the first error, passed or thrown, and hands it on', async () => {
    const ran: string[] = [];
    const failure = new Error('refused');
    const passes: RequestHandler = (_req, _res, next) => next(failure);
    const throws: RequestHandler = () => {
      throw failure;
    };
    const never: RequestHandler = (_req, _res, next) => {
      ran.push('never');
      next();
    };
    expect(await handedOn(inOrder(passes, never))).toEqual([failure]);
    expect(await handedOn(inOrder(throws, never))).toEqual([failure]);
    expect(ran).toEqual([]);
  });

  it('goes on past a falsy value, as Express does', async () => {
    const ran: string[] = [];
    const nulls: RequestHandler = (_req, _res, next) => next(null);
    const last: RequestHandler = (_req, _res, next) => {
      ran.push('last');
      next();
    };
    expect(await handedOn(inOrder(nulls, last))).toEqual([undefined]);
    expect(ran).toEqual(['last']);
  });

  it("goes on to the next handler on 'route', as Express's middleware does", async () => {
    const ran: string[] = [];
    const skips: RequestHandler = (_req, _res, next) => next('route');
    const check: RequestHandler = (_req, _res, next) => {
      ran.push('check');
      next();
    };
    expect(await handedOn(inOrder(skips, check))).toEqual([undefined]);
    expect(ran).toEqual(['check']);
  });

  it('with no handlers, goes straight on', async () => {
    expect(await handedOn(inOrder())).toEqual([undefined]);
  });
});
