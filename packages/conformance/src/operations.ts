/**
 * The operations of the API under test, walked from its contract rather than listed, so that a
 * rule stated for every operation covers one the contract gains.
 */
import {
  type ContractOperation,
  declaresBody,
  MAX_INTEGER_ID,
  type RouteMetadata,
} from '@animal-store/contract';
import { isZodType } from '@ts-rest/core';
import type { z } from 'zod';

/** An operation of the contract under test: its name and its route. */
export type Operation = ContractOperation;

export const operationName = ({ name, route }: Operation) =>
  (route.metadata as Partial<RouteMetadata> | undefined)?.operationId ?? name;

/**
 * The operation's path with each parameter filled with the largest id: no record of a deployment
 * has it yet, so a request there reads nothing and finds nothing.
 */
export function pathOf({ route }: Operation): string {
  return route.path.replace(/:\w+/g, String(MAX_INTEGER_ID));
}

/** The schema of the operation's answer of `status`, as the contract declares it. */
export function responseSchema(operation: Operation, status: number): z.ZodTypeAny {
  const schema = (operation.route.responses as Record<number, unknown>)[status];
  if (!isZodType(schema)) {
    throw new Error(`the contract declares no ${status} body for ${operationName(operation)}`);
  }
  return schema;
}

export const hasBody = ({ route }: Operation) => declaresBody(route);

/**
 * A body the operation refuses whatever the deployment: not one of its bodies, so that a deployment
 * which failed to refuse the request earlier (no key, a wrong type) has nothing to store.
 */
export const REFUSED_BODY = '{}';

/** The methods each path of the contract allows: those of its operations, and HEAD wherever GET is. */
export function allowedMethodsByPath(operations: readonly Operation[]): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  for (const operation of operations) {
    const path = pathOf(operation);
    const methods = byPath.get(path) ?? new Set<string>();
    methods.add(operation.route.method);
    if (operation.route.method === 'GET') methods.add('HEAD');
    byPath.set(path, methods);
  }
  return byPath;
}
