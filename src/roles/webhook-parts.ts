/** What webhook delivery is made of in every process that sends or manages them (api, workers). */
import type { LookupFunction } from 'node:net';
import type { Logger } from 'pino';
import type { ServiceConfig } from '../config/settings.js';
import type { Clock } from '../domain/clock.js';
import { allowListOf, webhookDialPolicy } from '../domain/webhook-url.js';
import { ThreadedWebhookSender } from '../delivery/threaded-webhook-sender.js';
import { WebhookSender } from '../delivery/webhook-sender.js';
import type { Keyring } from '../security/keyring.js';
import type { StoreConnection } from '../store/connection.js';
import type { WebhookDeps } from '../webhooks/webhook-deps.js';
import type { WebhookTransport } from '../webhooks/webhook-transport.js';
import { DEFAULT_WEBHOOK_TIMING } from '../webhooks/webhook-settings.js';

/** Receivers see who calls them; the version is the interface's (openapi.ts). */
const WEBHOOK_USER_AGENT = 'telematics-webhooks/0.1';

/** What is not configuration but tests set: a resolver (in-thread only), the built thread script, a lane's backlog. */
export interface WebhookSenderSeams {
  readonly lookup?: LookupFunction | undefined;
  readonly threadFile?: URL | undefined;
  readonly queuedPerLane?: number | undefined;
}

/** Sends webhooks from `--webhook-send-threads` threads, or from the dispatcher's own with 0. */
export function webhookSenderOf(config: ServiceConfig, logger: Logger, seams: WebhookSenderSeams = {}): WebhookSender | ThreadedWebhookSender {
  const allowCidrs = config.webhookAllowCidrs ?? [];
  if (config.webhookSendThreads > 0) {
    return new ThreadedWebhookSender({
      threads: config.webhookSendThreads, allowCidrs, userAgent: WEBHOOK_USER_AGENT,
      queuedPerLane: seams.queuedPerLane ?? 2 * DEFAULT_WEBHOOK_TIMING.perEndpointConcurrency, threadFile: seams.threadFile,
      onThreadError: (error) => logger.error({ err: error }, 'webhook sending thread failed; what it had under way is sent again'),
    });
  }
  const allowList = allowListOf(allowCidrs);
  return new WebhookSender({
    policies: { 'https:': webhookDialPolicy(allowList, 'https:'), 'http:': webhookDialPolicy(allowList, 'http:') },
    lookup: seams.lookup,
    userAgent: WEBHOOK_USER_AGENT,
  });
}

/** What the webhook routes and the dispatcher share. */
export function webhookDepsOf(config: ServiceConfig, store: StoreConnection, keyring: Keyring, clock: Clock, transport: WebhookTransport): WebhookDeps {
  return {
    store, keyring, clock, transport,
    settings: {
      ...DEFAULT_WEBHOOK_TIMING, allowList: allowListOf(config.webhookAllowCidrs ?? []), hasAllowList: (config.webhookAllowCidrs ?? []).length > 0,
      timeoutMs: config.webhookTimeout, maxEndpointsPerApplication: config.webhookEndpointsPerApp, disableAfterMs: config.webhookDisableAfter,
      retentionMs: config.eventRetentionMs,
    },
  };
}
