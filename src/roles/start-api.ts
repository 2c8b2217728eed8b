/** The `api` role: the HTTP API on `--host`:`--port`. */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { backgroundWritesSettled } from '../store/write-batcher.js';
import { buildApiApp } from './api-app.js';
import type { KeyedParts } from './service-parts.js';

/** Longest a stop waits for status URLs still being written. */
const STATUS_URL_SETTLE_MS = 10_000;

export interface RunningApi {
  readonly app: FastifyInstance;
  /** As clients write it (`localhost` for IPv6 loopback). */
  readonly url: string;
  close(): Promise<void>;
}

export async function startApi(parts: KeyedParts): Promise<RunningApi> {
  const { config, store, logger } = parts;
  const app = await buildApiApp(parts);
  try {
    // The API's Fastify has no logger (build-app.ts): its listening lines are written through ours.
    const address = await app.listen({ port: config.port, host: config.host, listenTextResolver: listeningLine(logger) });
    return {
      app,
      url: address.replace('[::1]', 'localhost'),
      close: async () => {
        await app.close();
        // Status URLs of commands already answered `Pending` (create-command.ts), within a bound: a
        // write held by a lock must not keep the process from stopping.
        const unwritten = await backgroundWritesSettled(store, STATUS_URL_SETTLE_MS);
        if (unwritten > 0) logger.warn({ unwritten }, 'status URLs still being written at stop: those commands are initiated again (same Idempotency-Key) 15 s after they began');
      },
    };
  } catch (error) {
    await app.close();
    throw error;
  }
}

/** Fastify's listening line (`Server listening at <address>`, once per address), written to `logger`. */
function listeningLine(logger: Logger): (address: string) => string {
  return (address) => {
    const text = `Server listening at ${address}`;
    logger.info(text);
    return text;
  };
}
