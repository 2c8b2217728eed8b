import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * Structured JSON logs. The service never logs headers or bodies; redaction is a second line of
 * defence should a secret-bearing object reach a log call anyway.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers["x-signature"]', 'headers.authorization', 'headers["x-signature"]',
  '*.client_secret', '*.sign_secret', '*.password', '*.token', '*.ingest_key', 'client_secret', 'sign_secret', 'password', 'token',
];

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: 'telematics' }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
