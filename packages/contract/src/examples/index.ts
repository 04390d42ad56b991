/**
 * `@animal-store/contract/examples`: each operation's behaviour as examples, and the runner that
 * holds an implementation to them over any transport. The examples of v1 are `CONTRACT_EXAMPLES`;
 * a contract built like v1 states its own with `ContractExamples<typeof itsContract>`.
 */
import { contract } from '../index.js';
import { type ContractExamples, examplesOf } from './example.js';
import { PETS_EXAMPLES } from './pets.examples.js';

export { DEMO_PETS } from './demo-pets.js';

export {
  type ContractExamples,
  type Example,
  type ExampleCase,
  type ExampleRequest,
  type ExampleStep,
  type Expected,
  type ExpectedAnswer,
  examplesOf,
  type Given,
  InvalidBody,
  invalid,
  RawBody,
  raw,
  type Text,
  unexemplified,
} from './example.js';
export {
  absent,
  arrayOf,
  type ListRule,
  Matcher,
  nextPageLink,
  Reference,
  ref,
  type Scope,
  satisfies,
  Template,
  template,
  UniqueValue,
  unique,
} from './expected.js';
export {
  type ExampleExchange,
  type ExampleResult,
  runExample,
  type Transport,
  type WireAnswer,
  type WireCredential,
  type WireRequest,
  wireRequestOf,
} from './run.js';

/** The examples of every operation of the v1 contract. */
export const CONTRACT_EXAMPLES: ContractExamples<typeof contract> = { ...PETS_EXAMPLES };

/** The v1 contract's examples, each ready to run (`runExample`). */
export const contractExampleCases = () => examplesOf(contract, CONTRACT_EXAMPLES);
