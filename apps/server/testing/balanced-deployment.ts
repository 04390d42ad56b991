/**
 * The deployment production runs, for this package's load-balancer test and other packages'
 * tests (`@animal-store/server/testing/balanced-deployment`): instances of the server, started by
 * their start script, on one new PostgreSQL database and one Redis (`TEST_POSTGRES_URL`,
 * `TEST_REDIS_URL`), behind a real HAProxy (./haproxy.ts) that checks `/readyz` of each and
 * forwards client addresses, which each instance believes from the balancer's address
 * (`TRUST_PROXY`). No `PUBLIC_URL`: links are on each request's own origin, as behind a balancer
 * that forwards the Host header.
 */
import { randomUUID } from 'node:crypto';
import { freePort } from '@animal-store/local-ports';
import { type Balancer, type HealthChecks, startBalancer } from './haproxy.js';
import { type LiveServer, startLiveServer, startScriptFlags } from './live-server.js';
import { freshDatabase } from './test-database.js';
import { SHARED_REDIS_URL } from './test-services.js';

export interface BalancedDeploymentOptions {
  /** The instances' names, in the balancer and in their labels (`balanced-<name>`). */
  names: readonly string[];
  checks: HealthChecks;
  /** PostgreSQL by default; `sqlite`, a new SQLite file instead (for one instance). */
  database?: 'postgresql' | 'sqlite';
  /** Settings of instance `index` besides the deployment's own (say, its metrics port). */
  settings?: (index: number) => NodeJS.ProcessEnv;
  /** Requests the balancer sends each instance at once (its `maxconn`); the documented 100 by default. */
  serverMaxconn?: number;
}

export interface BalancedDeployment {
  /** The balancer's front end, where clients call, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly balancer: Balancer;
  /** The instances, in the order of `names`; `startInstance` replaces one. */
  readonly instances: readonly LiveServer[];
  /** The database they share. */
  readonly databaseUrl: string;
  /** Starts instance `index` again (once it has stopped) with the same port and settings. */
  startInstance(index: number): Promise<LiveServer>;
  /** Stops the balancer and the instances, and drops the database. */
  stop(): Promise<void>;
}

/** Resolves once every instance has started and the balancer sees each of them up. */
export async function startBalancedDeployment(
  options: BalancedDeploymentOptions,
): Promise<BalancedDeployment> {
  const database = await freshDatabase(undefined, options.database ?? 'postgresql');
  const nodeFlags = await startScriptFlags();
  const redisKeyPrefix = `test:${randomUUID()}:`;
  const ports: number[] = [];
  for (const _ of options.names) ports.push(await freePort());
  const instances: LiveServer[] = [];
  // Links on each request's own origin, as behind a balancer that forwards the Host header.
  const { PUBLIC_URL: _publicUrl, ...environment } = process.env;

  const startInstance = async (index: number) => {
    const instance = await startLiveServer(`balanced-${options.names[index]}`, {
      port: ports[index],
      databaseUrl: database.url,
      nodeFlags,
      env: {
        ...environment,
        NODE_ENV: 'production',
        REDIS_URL: SHARED_REDIS_URL,
        REDIS_KEY_PREFIX: redisKeyPrefix,
        TRUST_PROXY: '127.0.0.1',
        ...options.settings?.(index),
      },
    });
    instances[index] = instance;
    return instance;
  };

  let balancer: Balancer | undefined;
  const stop = async () => {
    await balancer?.stop();
    for (const instance of instances) await instance.stop();
    await database.drop();
  };

  try {
    // One after another: the first migrates the new database, the others find it ready.
    for (const index of options.names.keys()) await startInstance(index);
    balancer = await startBalancer(
      options.names.map((name, index) => ({ name, port: ports[index] as number })),
      options.checks,
      options.serverMaxconn,
    );
    for (const name of options.names) await balancer.waitFor(name, 'UP');
  } catch (error) {
    // The start's own failure is the one to show, not what cleaning up after it met.
    await stop().catch(() => {});
    throw error;
  }

  return {
    url: balancer.url,
    balancer,
    instances,
    databaseUrl: database.url,
    startInstance,
    stop,
  };
}
