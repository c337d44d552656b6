import { type DestinationStream, type LoggerOptions, pino, type Logger } from 'pino';
import type { ServiceEnvironment } from '../settings/environment.settings';
import type { ObservabilityConfig } from './observability.settings';
import { serializeError } from './log-safety';
import { currentRequest } from './request-tracking';

/** What the logger is made from: its level and format, and the service's environment. */
type LogSettings = Pick<ObservabilityConfig, 'logLevel' | 'logFormat'> & {
  env: ServiceEnvironment;
};

/** Whether log lines are written for a person at a terminal rather than as JSON. */
function pretty(config: Omit<LogSettings, 'logLevel'>): boolean {
  if (config.logFormat !== 'auto') {
    return config.logFormat === 'pretty';
  }
  return config.env !== 'production' && process.stdout.isTTY === true;
}

/**
 * The structured JSON logger. Every line written while a request is served carries its id;
 * errors are logged through a whitelist (no SQL, values, hashes, tokens or e-mails).
 */
export function createLogger(
  config: LogSettings,
  /** Where lines go instead of stdout (tests read them). */
  destination?: DestinationStream,
): Logger {
  const options: LoggerOptions = {
    level: config.logLevel,
    base: { service: 'meeting-api' },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError },
    mixin: () => {
      const request = currentRequest();
      return request ? { reqId: request.id } : {};
    },
    redact: { paths: ['*.password', '*.passwordHash'], censor: '[redacted]' },
    // pino-pretty (a development dependency) is loaded, in a worker, only in this case.
    ...(pretty(config) && !destination
      ? {
          transport: {
            target: 'pino-pretty',
            options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'service,pid,hostname' },
          },
        }
      : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}
