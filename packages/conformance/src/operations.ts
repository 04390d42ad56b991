/**
 * The contract's operations, walked rather than listed, so that a rule stated for every operation
 * covers one the contract gains.
 */
import {
  type Contract,
  contract,
  MAX_INTEGER_ID,
  type RouteMetadata,
} from '@animal-store/contract';
import { type AppRoute, isAppRoute, isZodType } from '@ts-rest/core';
import type { z } from 'zod';

type Resource = Contract[keyof Contract];

/** An operation of the contract, e.g. `petsContract.getPet`. */
export type Operation = Resource[keyof Resource];

export function operations(): Operation[] {
  return Object.values(contract).flatMap((resource) =>
    Object.values(resource).filter((route) => isAppRoute(route)),
  ) as Operation[];
}

export const operationName = (operation: Operation) =>
  (operation.metadata as RouteMetadata).operationId;

/**
 * The operation's path with each parameter filled with the largest id: no pet of a deployment has
 * it yet, so a request there reads nothing and finds nothing.
 */
export function pathOf(operation: { readonly path: string }): string {
  return operation.path.replace(/:\w+/g, String(MAX_INTEGER_ID));
}

/** The schema of the operation's answer of `status`, as the contract declares it. */
export function responseSchema(operation: Operation, status: number): z.ZodTypeAny {
  const schema = (operation.responses as AppRoute['responses'])[status];
  if (!isZodType(schema)) {
    throw new Error(`the contract declares no ${status} body for ${operationName(operation)}`);
  }
  return schema;
}

export const hasBody = (operation: Operation) => 'body' in operation;

/**
 * A body the operation refuses whatever the deployment: not one of its bodies, so that a deployment
 * which failed to refuse the request earlier (no key, a wrong type) has nothing to store.
 */
export const REFUSED_BODY = '{}';

/** The methods each path of the contract allows: those of its operations, and HEAD wherever GET is. */
export function allowedMethodsByPath(): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  for (const operation of operations()) {
    const methods = byPath.get(pathOf(operation)) ?? new Set<string>();
    methods.add(operation.method);
    if (operation.method === 'GET') methods.add('HEAD');
    byPath.set(pathOf(operation), methods);
  }
  return byPath;
}
