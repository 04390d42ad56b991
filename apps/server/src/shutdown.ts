import type { Logger } from './logger.js';
import { exitWhenIdle } from './process-exit.js';

/**
 * How long a stopping server keeps serving while `/readyz` answers 503, and how long its
 * in-flight requests then get. The drain outlasts a load balancer's usual way of noticing: three
 * failed checks two seconds apart (HAProxy's `inter 2s fall 3`), plus a check interval for
 * where in it the signal came; docs/operations.md works it out for other settings.
 */
export const DEFAULT_SHUTDOWN = { drainMs: 10_000, graceMs: 10_000 } as const;

export interface ShutdownPlan {
  drainMs: number;
  /** Told first: from then on `/readyz` answers 503. */
  beginDrain: () => void;
  /** Closes the listeners, lets in-flight requests finish, releases the dependencies. */
  stop: () => Promise<void>;
  logger: Logger;
}

/**
 * Takes the server out of service on SIGTERM the way load balancers expect: readiness fails
 * first while every request is still served, for `drainMs`, so that balancers stop sending new
 * ones; only then does the listener close. A second SIGTERM, or a SIGINT (Ctrl-C), skips what is
 * left of the drain; signals after that are ignored, the grace period being bounded already.
 */
export function stopOnSignals(plan: ShutdownPlan): void {
  let phase: 'serving' | 'draining' | 'stopping' = 'serving';
  let endDrain = () => {};

  const drain = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      const drainMs = signal === 'SIGINT' ? 0 : plan.drainMs;
      plan.logger.info(
        { signal, drainMs },
        'shutting down: /readyz answers 503 while load balancers take this instance out',
      );
      const timer = setTimeout(resolve, drainMs);
      endDrain = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const onSignal = (signal: NodeJS.Signals) => {
    if (phase === 'draining') {
      plan.logger.info({ signal }, 'drain cut short by a second signal');
      endDrain();
      return;
    }
    if (phase === 'stopping') return;
    phase = 'draining';
    plan.beginDrain();
    drain(signal)
      .then(() => {
        phase = 'stopping';
        plan.logger.info('closing the listener: finishing in-flight requests');
        return plan.stop();
      })
      .then(
        () => exitWhenIdle(0),
        (error: unknown) => {
          plan.logger.error({ err: error }, 'shutdown failed');
          exitWhenIdle(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
