import { fileURLToPath } from 'node:url';

/**
 * The program of a user of the client, compiled and run in consumer projects. Every release
 * records a copy beside its tarballs (`api/released/consumer.ts`), run again by the
 * released-client test.
 */
export const CONSUMER_PROGRAM = fileURLToPath(new URL('../consumer/consumer.ts', import.meta.url));

/** The checks the consumer program makes, in order, as it reports them when all pass. */
export const CONSUMER_CHECKS = [
  'create without status',
  'filtered list',
  'page iterator',
  'deprecated get',
  '404 narrowing',
  '400 narrowing',
  'rate-limit state',
];
