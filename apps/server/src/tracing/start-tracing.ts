/**
 * The one switch that decides whether the server has a tracer. It stands apart from the
 * interface (tracing.ts) so that the implementation, which depends on that interface, is only
 * ever imported from here, and only once the environment asks for traces.
 */
import type { Logger } from '../logger.js';
import { TRACING_OFF, type TracedDependencies, type Tracing } from './tracing.js';

const isSet = (value: string | undefined) => value !== undefined && value.trim() !== '';

/**
 * Whether `env` asks for traces, as OpenTelemetry's specification reads its variables: an OTLP
 * endpoint for them (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` for
 * every signal), unless `OTEL_SDK_DISABLED` is true or `OTEL_TRACES_EXPORTER` is `none`.
 */
function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * The server's tracing: OpenTelemetry's, exporting over OTLP, when the process's environment
 * asks for traces, else `TRACING_OFF`, with nothing of OpenTelemetry loaded.
 */
export async function startTracing(
  logger: Logger,
  dependencies: TracedDependencies,
): Promise<Tracing> {
  // The SDK reads the rest of the variables from the process's environment itself.
  if (!tracingRequested(process.env)) return TRACING_OFF;
  const { openTelemetryTracing } = await import('./open-telemetry.js');
  return openTelemetryTracing(logger, dependencies);
}
