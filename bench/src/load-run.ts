import autocannon, { type Instance, type Options, type Result } from 'autocannon';
import { onCleanup } from './cleanup.js';

export interface LoadSettings {
  origin: string;
  apiKey: string;
  connections: number;
  durationSeconds: number;
  requests: NonNullable<Options['requests']>;
}

/**
 * One autocannon run in this process, stopped at cleanup if the bench is interrupted.
 * `watch` sees the instance before it starts, for per-response tracking.
 */
export function runLoad(settings: LoadSettings, watch?: (instance: Instance) => void) {
  return new Promise<Result>((resolve, reject) => {
    let stop: (() => void) | undefined;
    const instance = autocannon(
      {
        url: settings.origin,
        connections: settings.connections,
        duration: settings.durationSeconds,
        headers: { authorization: `Bearer ${settings.apiKey}` },
        requests: settings.requests,
      },
      (error, result) => {
        stop?.();
        if (error) reject(error);
        else resolve(result);
      },
    );
    const cleanup = onCleanup('stop the load', () => instance.stop());
    stop = cleanup.dismiss;
    watch?.(instance);
  });
}

/** Completed responses per second, whatever their status. */
export function requestsPerSecond(result: Result): number {
  return result.duration > 0 ? result.requests.total / result.duration : 0;
}
