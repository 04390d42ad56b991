import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** The one logger. Secrets in headers are redacted, so keys never reach the logs. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
