/**
 * Where the suite finds the services it needs besides Node: `TEST_POSTGRES_URL` and
 * `TEST_REDIS_URL` name them, else the local defaults CONTRIBUTING.md lists. Every test reads
 * them from here (`.ci/run` gives both on other ports and fails a run that never used them).
 */
export const POSTGRES_SERVER_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** The Redis the suite shares; every test namespaces its keys, so runs never collide. */
export const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The ports the two protocols use when a URL names none. */
export const DEFAULT_PORTS = { postgresql: 5432, redis: 6379 } as const;
