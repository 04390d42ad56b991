import { type ContractOperation, contract, operationsOf } from '@animal-store/contract';
import { contractExampleCases, type ExampleCase } from '@animal-store/contract/examples';
import type { AppRouter } from '@ts-rest/core';

/**
 * The API a run checks: its contract, whose operations the rules stated for every operation walk,
 * and the examples of those operations. The Animal Store's v1 unless a run is given another built
 * like it (a resource of its own beside the pets, say).
 */
export interface ApiUnderTest {
  readonly contract: AppRouter;
  /** Every example of its operations, ready to run (`examplesOf(contract, yourExamples)`). */
  readonly examples: readonly ExampleCase[];
}

/** The Animal Store API v1: its contract and its examples. */
export const ANIMAL_STORE_V1: ApiUnderTest = { contract, examples: contractExampleCases() };

/** The operations of the API under test, in its contract's order. */
export const operationsUnderTest = (api: ApiUnderTest): ContractOperation[] =>
  operationsOf(api.contract);
