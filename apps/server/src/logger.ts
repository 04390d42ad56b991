import { EventEmitter } from 'node:events';
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** Log output held while stdout cannot keep up, by default: a few seconds of request logs. */
export const DEFAULT_LOG_BUFFER_BYTES = 4 * 1024 * 1024;

/** How often to say how many lines were shed, when any were. */
const SHED_REPORT_INTERVAL_MS = 5_000;

/** Where log lines go: stdout's file descriptor, or a file (tests). */
type LogOutput = number | string;

/**
 * Stdout, written asynchronously through a buffer of at most `maxBytes`: a saturated process or
 * a slow log collector costs log lines (shed, counted and reported), never unbounded memory.
 */
export function boundedStdout(
  maxBytes = DEFAULT_LOG_BUFFER_BYTES,
  output: LogOutput = 1,
): ReturnType<typeof pino.destination> {
  const destination = pino.destination({
    dest: output,
    sync: false,
    maxLength: maxBytes,
    contentMode: 'buffer',
  });
  // Lines go to sonic-boom as bytes. Given text, it measures the batch waiting behind the write
  // in flight on every line (Buffer.byteLength of a growing concatenation, which V8 copies flat
  // each time): at 19,000 lines a second that was 5 KB of garbage per line, an eighth of all a
  // `get` allocates. In buffer mode a line is one small Buffer, and a batch is joined once, as
  // it is written. (pino itself replaces `write` the same way when stdout's pipe is closed;
  // sonic-boom's types know its text mode only.)
  const writeBytes = destination.write.bind(destination) as unknown as (bytes: Buffer) => boolean;
  destination.write = (line: string) => writeBytes(Buffer.from(line));
  // A failed write (stdout a file on a full disk) must not end the process, as pino's rethrow
  // would: the lines wait in the buffer for the next write, and past its limit they are shed and
  // counted. At exit, pino flushes in a loop that never gives up on such an error, so that last
  // flush is skipped once a write has failed, as pino itself does for a closed pipe.
  destination.on('error', () => {
    destination.flushSync = () => {};
  });
  return destination;
}

/** Says, every few seconds, how many lines `destination` shed (its `drop` events) since the last time. */
function reportShedLines(logger: Logger, destination: DestinationStream): void {
  if (!(destination instanceof EventEmitter)) return;
  let shedLines = 0;
  destination.on('drop', () => {
    shedLines += 1;
  });
  setInterval(() => {
    const reported = shedLines;
    if (reported === 0) return;
    logger.warn({ shedLines: reported }, 'log output could not keep up: lines were shed');
    // A report written while the buffer is still full is shed too (the drop is counted during
    // the call): then its count is not lost but carried, with the report itself, to the next.
    if (shedLines === reported) shedLines = 0;
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
