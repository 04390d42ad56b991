import { EventEmitter } from 'node:events';
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** Log output held while stdout cannot keep up, by default: a few seconds of request logs. */
export const DEFAULT_LOG_BUFFER_BYTES = 4 * 1024 * 1024;

/** How often to say how many lines were shed, when any were. */
const SHED_REPORT_INTERVAL_MS = 5_000;

/**
 * Stdout, written asynchronously through a buffer of at most `maxBytes`: a saturated process or
 * a slow log collector costs log lines (shed, counted and reported), never unbounded memory.
 */
export function boundedStdout(maxBytes = DEFAULT_LOG_BUFFER_BYTES): DestinationStream {
  return pino.destination({ dest: 1, sync: false, maxLength: maxBytes });
}

/** Says, every few seconds, how many lines `destination` shed (its `drop` events) since the last time. */
function reportShedLines(logger: Logger, destination: DestinationStream): void {
  if (!(destination instanceof EventEmitter)) return;
  let shedLines = 0;
  destination.on('drop', () => {
    shedLines += 1;
  });
  setInterval(() => {
    if (shedLines === 0) return;
    logger.warn({ shedLines }, 'log output could not keep up: lines were shed');
    shedLines = 0;
  }, SHED_REPORT_INTERVAL_MS).unref();
}

/** The one logger. Request lines carry chosen fields only (`http/request-log.ts`), never headers. */
export function createLogger(
  level: string,
  destination: DestinationStream = boundedStdout(),
): Logger {
  const logger = pino({ level }, destination);
  reportShedLines(logger, destination);
  return logger;
}
