/** The OpenAPI document as `telematics openapi` prints it, built from the routes with nothing running. */
import { buildApp } from '../http/build-app.js';
import { createLogger } from '../logger.js';
import { ServiceMetrics } from '../http/metrics.js';
import { loadConfig } from '../config/load-config.js';
import { apiDepsOf } from '../roles/api-app.js';
import { connectorsOf } from '../roles/connectors.js';
import { readinessOf } from '../roles/readiness.js';
import { webhookDepsOf } from '../roles/webhook-parts.js';
import { generateKeyringDocument, keyringFromDocument } from '../security/keyring.js';
import { openStore } from '../store/open-store.js';
import { systemClock } from '../domain/clock.js';

/**
 * The document as text: two-space indents, a final newline. Keys stay in the order the routes and
 * schemas are written (datapoints in the catalogue's order), which is the same on every build.
 */
export async function openApiDocumentText(): Promise<string> {
  // Nothing is read or sent while the document is built: an empty in-memory store and throwaway
  // keys only satisfy the routes' construction. The settings are the defaults, whatever this
  // process's environment says, so the document is the same on every machine.
  const config = loadConfig({ database: ':memory:', console: false }, {});
  const store = openStore(':memory:', { poolSize: 1 });
  const keyring = keyringFromDocument(generateKeyringDocument(), 'openapi');
  const clock = systemClock;
  const unused = { post: () => Promise.reject(new Error('the document builder sends nothing')) };
  const app = await buildApp(apiDepsOf({
    config, store, keyring, clock, logger: createLogger('silent'), metrics: new ServiceMetrics(), connectors: connectorsOf(config, store, clock),
    queue: undefined, readiness: readinessOf(config, store, undefined), webhooks: webhookDepsOf(config, store, keyring, clock, unused),
  }));
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
    await store.close();
  }
}
