/**
 * Settings a user puts in front of a command that runs the server, each with a non-default value
 * whose effect a client can see: a metrics listener, a browser origin allowed in, a quieter log,
 * a keep-alive deadline. A command that drops one on the way to the server fails its check.
 */
import { freePort } from '@animal-store/local-ports';
import { expect } from 'vitest';

const SHOP_ORIGIN = 'https://shop.example';
const KEEP_ALIVE_SECONDS = 7;

export interface ObservableSettings {
  /** The variables, as they go in front of the command. */
  readonly env: Record<string, string>;
  readonly metricsUrl: string;
}

export async function observableSettings(): Promise<ObservableSettings> {
  const metricsPort = await freePort();
  return {
    env: {
      METRICS_PORT: String(metricsPort),
      CORS_ORIGINS: SHOP_ORIGIN,
      LOG_LEVEL: 'warn',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_SECONDS * 1000),
    },
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
  };
}

/** The response, or why there was none: a listener that never started refuses the connection. */
function answerTo(url: string, init?: RequestInit): Promise<Response | string> {
  return fetch(url, init).catch((error: Error) => `no answer (${error.cause ?? error})`);
}

const statusOf = (answer: Response | string) =>
  typeof answer === 'string' ? answer : answer.status;

/** The lines a server logging at info writes on start and for each request. */
const INFO_LINE = /"msg":"(request completed|Animal Store API listening)"/;

/**
 * Checks every setting of `settings` on the server at `apiUrl`, each on its own, so a failure
 * names every setting that was dropped. `output` is what the command has printed so far.
 */
export async function expectSettingsInEffect(
  settings: ObservableSettings,
  apiUrl: string,
  output: () => string,
): Promise<void> {
  const metrics = await answerTo(settings.metricsUrl);
  expect.soft(statusOf(metrics), 'METRICS_PORT').toBe(200);
  if (typeof metrics !== 'string') {
    expect.soft(await metrics.text(), 'METRICS_PORT').toContain('# TYPE animal_store_');
  }

  const preflight = await answerTo(`${apiUrl}/v1/pets`, {
    method: 'OPTIONS',
    headers: {
      origin: SHOP_ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
    },
  });
  expect.soft(statusOf(preflight), 'CORS_ORIGINS').toBe(204);
  if (typeof preflight !== 'string') {
    expect
      .soft(preflight.headers.get('access-control-allow-origin'), 'CORS_ORIGINS')
      .toBe(SHOP_ORIGIN);
  }

  const health = await fetch(`${apiUrl}/healthz`);
  expect
    .soft(health.headers.get('keep-alive'), 'HTTP_KEEP_ALIVE_TIMEOUT_MS')
    .toBe(`timeout=${KEEP_ALIVE_SECONDS}`);

  // At the default level, info, the start and each request above would have written a line.
  const infoLines = output()
    .split('\n')
    .filter((line) => INFO_LINE.test(line));
  expect.soft(infoLines, 'LOG_LEVEL').toEqual([]);
}
