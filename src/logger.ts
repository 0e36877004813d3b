import type { LoggerOptions } from 'pino';
import { REDACTED_LOG_PATHS } from './http/app.js';

/** JSON logs, one line an event, secrets censored wherever they appear by those names. */
export function loggerOptions(level: LoggerOptions['level']): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
  };
}
