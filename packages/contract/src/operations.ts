import { type AppRoute, type AppRouter, ContractNoBody, isAppRoute } from '@ts-rest/core';

/** One operation of a contract: its name (the route's key) and its route. */
export interface ContractOperation {
  readonly name: string;
  readonly route: AppRoute;
}

/**
 * Every operation of `contract`, however deep its routers nest, in the order it declares them.
 * Their names are the routes' keys, unique across the contract: metrics, traces, examples and the
 * OpenAPI document name operations by them, so a second operation of one name is refused here.
 */
export function operationsOf(contract: AppRouter): ContractOperation[] {
  const operations: ContractOperation[] = [];
  const visit = (router: AppRouter) => {
    for (const [name, entry] of Object.entries(router)) {
      if (!isAppRoute(entry)) {
        visit(entry);
      } else if (operations.some((operation) => operation.name === name)) {
        throw new Error(`Two operations of the contract are named ${name}`);
      } else {
        operations.push({ name, route: entry });
      }
    }
  };
  visit(contract);
  return operations;
}

/** Whether `route` declares a request body, which is then read as JSON before validation. */
export function declaresBody(route: AppRoute): boolean {
  return 'body' in route && route.body !== ContractNoBody && route.body !== undefined;
}

/** The operations of a contract by name, however deep its routers nest: `operationsOf`'s type. */
export type OperationsOf<Contract extends AppRouter> = UnionToIntersection<
  {
    [Key in keyof Contract]: Contract[Key] extends AppRoute
      ? { [Name in Key]: Contract[Key] }
      : Contract[Key] extends AppRouter
        ? OperationsOf<Contract[Key]>
        : never;
  }[keyof Contract]
>;

type UnionToIntersection<Union> = (Union extends unknown ? (value: Union) => void : never) extends (
  value: infer Intersection,
) => void
  ? Intersection
  : never;
