/**
 * `telematics openapi`: the OpenAPI document, as GET /openapi.json serves it, without a database
 * or a listener. The repository keeps it in openapi/openapi.json (`npm run openapi:export`), and
 * a test fails when that file is stale; clients (the SDK's types) are generated from it.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { buildApp } from '../http/build-app.js';
import { createLogger } from '../logger.js';
import { ConnectorRegistry } from '../oem/connector-registry.js';
import { generateKeyringDocument, keyringFromDocument } from '../security/keyring.js';
import { openStore } from '../store/open-store.js';
import { systemClock } from '../domain/clock.js';
import { DEFAULT_WEBHOOK_TIMING } from '../webhooks/webhook-settings.js';
import { allowListOf } from '../domain/webhook-url.js';
import { processOutput, UsageError } from './output.js';

/**
 * The document as text: two-space indents, a final newline. Keys stay in the order the routes and
 * schemas are written (datapoints in the catalogue's order), which is the same on every build.
 */
export async function openApiDocumentText(): Promise<string> {
  // Nothing is read or sent while the document is built: an empty in-memory store and throwaway
  // keys only satisfy the routes' construction.
  const store = openStore(':memory:', { poolSize: 1 });
  const keyring = keyringFromDocument(generateKeyringDocument(), 'openapi');
  const clock = systemClock;
  const unused = { post: () => Promise.reject(new Error('the document builder sends nothing')) };
  const app = await buildApp({
    store, keyring, clock, tokenSettings: { issuer: 'telematics', audience: 'telematics-api' }, bodyLimit: 1_048_576,
    telemetryRetentionMs: 0, tripLatenessMs: 0, connectors: new ConnectorRegistry({ initiateTimeoutMs: 1, pollTimeoutMs: 1 }), commandTimeoutMs: 0,
    logger: createLogger('silent'),
    webhooks: {
      store, keyring, clock, transport: unused,
      settings: { ...DEFAULT_WEBHOOK_TIMING, allowList: allowListOf([]), hasAllowList: false, retentionMs: 0, timeoutMs: 1, disableAfterMs: 0, maxEndpointsPerApplication: 0 },
    },
  });
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
    await store.close();
  }
}

export function registerOpenApi(program: Command): void {
  program.command('openapi')
    .description('print the OpenAPI document (what GET /openapi.json serves)')
    .option('--out <file>', 'write it to this file instead')
    .action(async (opts: { out?: string }) => {
      const text = await openApiDocumentText();
      if (opts.out === undefined) {
        processOutput(false).out(text);
        return;
      }
      try {
        writeFileSync(opts.out, text);
      } catch (error) {
        throw new UsageError(`cannot write ${opts.out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      processOutput(false).out(`wrote ${opts.out}\n`);
    });
}
