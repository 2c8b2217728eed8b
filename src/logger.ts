import pino, { type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { LogLevel } from './config/settings.js';
import { gatheredStdout } from './log-destination.js';

/**
 * Structured JSON logs. The service never logs headers or bodies; redaction is a second line of
 * defence should a secret-bearing object reach a log call anyway.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers["x-signature"]', 'headers.authorization', 'headers["x-signature"]',
  'req.headers.cookie', 'headers.cookie', 'res.headers["set-cookie"]', 'headers["set-cookie"]',
  '*.client_secret', '*.sign_secret', '*.password', '*.token', '*.ingest_key', 'client_secret', 'sign_secret', 'password', 'token',
];

/** A logger writing JSON lines to `destination`, or to standard output in blocks (log-destination.ts). */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: 'telematics' }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination ?? gatheredStdout());
}

/** The fields of a request line (build-app.ts), folded into its message when read by a person. */
const REQUEST_FIELDS = ['method', 'route', 'status', 'ms'] as const;

/**
 * Log lines for a person at a terminal: `[12:01:02] INFO: GET /vehicle 200 1.4 ms`, other fields on
 * the same line, error stacks below. Each JSON line pino writes (already redacted) is rewritten
 * synchronously and handed to `write`, so it can be placed above a progress bar.
 */
export function humanLogDestination(write: (text: string) => void, colorize: boolean): pino.DestinationStream {
  const pretty = prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service', singleLine: true });
  return {
    write(line: string) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg === 'request' && typeof entry.method === 'string') {
        const status = Number(entry.status);
        entry.msg = `${entry.method} ${String(entry.route ?? '(no route)')} ${status} ${String(entry.ms)} ms`;
        for (const field of REQUEST_FIELDS) delete entry[field];
        // The request id matters when something went wrong; on a success it is only noise.
        if (status < 400) delete entry.reqId;
      }
      write(pretty(entry));
    },
  };
}
