/** How webhooks behave; `serve` fills these from its configuration (docs/configuration.md). */
import type { BlockList } from 'node:net';

export interface WebhookSettings {
  /** The operator's `--webhook-allow-cidr` ranges, parsed, and whether there are any. */
  readonly allowList: BlockList;
  readonly hasAllowList: boolean;
  /** One attempt's deadline, ms (connection, headers, and the body when read). */
  readonly timeoutMs: number;
  /** Attempts in flight to one endpoint at once, per process: a slow receiver cannot take every slot. */
  readonly perEndpointConcurrency: number;
  /** Attempts in flight in all, per process. */
  readonly concurrency: number;
  /** An endpoint failing this long without a single success is disabled, ms. */
  readonly disableAfterMs: number;
  readonly maxEndpointsPerApplication: number;
  /** How long events are kept, ms: how far back `recover` may reach. */
  readonly retentionMs: number;
  /** How often the dispatcher looks for events to fan out and deliveries due, ms. */
  readonly pollMs: number;
}

/** The dispatcher's own pacing; the timeout, disabling and endpoint count are SETTINGS rows. */
export const DEFAULT_WEBHOOK_TIMING = Object.freeze({
  perEndpointConcurrency: 4,
  concurrency: 64,
  // Each pass is a few indexed reads when nothing is new; this is most of an event's latency.
  pollMs: 100,
});
