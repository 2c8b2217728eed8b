/**
 * Webhook delivery for the webhooks suite: the service started so it may post to loopback over
 * plain HTTP, an endpoint registered and verified through the API as an application does it,
 * `vehicle.online` events appended straight into the outbox (appendEvents, as the code that
 * reports a change does), the receiver's counts and receipt times (webhook-receiver.mjs), and the
 * floor (webhook-floor.mjs, its own process).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventIdOf } from '../../dist/domain/events.js';
import { appendEvents } from '../../dist/store/event-appends.js';
import { tokenFrom } from './fixture.mjs';
import { startService } from './processes.mjs';

const FLOOR_CHILD = fileURLToPath(new URL('./webhook-floor.mjs', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * `telematics serve` (every role) allowed to post to 127.0.0.0/8 over plain HTTP. With
 * BENCH_PROFILE_DIR set, the service writes a CPU profile there when it stops.
 */
export function startWebhookService({ database, keys, logFile }) {
  return startService({ database, keys, logFile, settings: { TELEMATICS_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
}

/**
 * Registers `url` for every event type (POST /webhook-endpoints with the bench application's
 * token) and waits until the service has sent the challenge and enabled it. Resolves to the
 * endpoint's id and signing secret.
 */
export async function registerEndpoint(serviceUrl, url) {
  const auth = `Bearer ${await tokenFrom(serviceUrl)}`;
  const res = await fetch(`${serviceUrl}/webhook-endpoints`, {
    method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ url, event_types: ['*'] }),
  });
  if (res.status !== 201) throw new Error(`POST /webhook-endpoints: ${res.status} ${await res.text()}`);
  const { id, secret } = await res.json();
  const deadline = Date.now() + 15_000;
  for (;;) {
    const endpoint = await (await fetch(`${serviceUrl}/webhook-endpoints/${id}`, { headers: { authorization: auth } })).json();
    if (endpoint.status === 'enabled') return { id, secret };
    if (Date.now() > deadline) throw new Error(`the webhook endpoint was not enabled: ${JSON.stringify(endpoint)}`);
    await sleep(50);
  }
}

/**
 * Numbers events for the suite: each `append` writes `count` `vehicle.online` events of the
 * company's vehicle in one appendEvents call (ids from eventIdOf('bench', n), n never reused) and
 * resolves to their ids and the instant the call returned (Date.now(): the events committed).
 * Each event's data carries `n` and `appended_at`, Date.now() just before the call.
 */
export function eventWriter(db, { companyId, vin }) {
  let next = 0;
  return async function append(count) {
    const appendedAt = Date.now();
    const drafts = Array.from({ length: count }, () => {
      const n = next++;
      return { id: eventIdOf('bench', n), type: 'vehicle.online', vin, companyId, applicationId: null, occurredAt: appendedAt, data: { vin, n, appended_at: appendedAt } };
    });
    await appendEvents(db, drafts, appendedAt);
    return { ids: drafts.map((d) => d.id), appendedAt, committedAt: Date.now() };
  };
}

/** The receiver's counts: distinct event ids received and POSTs in all. */
export async function receiverStats(receiverUrl) {
  return (await fetch(`${receiverUrl}/stats`)).json();
}

/** First receipts from the `from`-th on, as `[[id, ms], …]` in arrival order. */
export async function receiptsFrom(receiverUrl, from) {
  return (await fetch(`${receiverUrl}/receipts?from=${from}`)).json();
}

/**
 * Waits until the receiver has `distinct` distinct ids; throws when none more arrive for
 * `stallMs` (the delivery stopped: the service's log says why).
 */
export async function waitForDistinct(receiverUrl, distinct, { stallMs = 30_000, logFile } = {}) {
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    const stats = await receiverStats(receiverUrl);
    if (stats.distinct >= distinct) return stats;
    if (stats.distinct !== last) { last = stats.distinct; movedAt = Date.now(); }
    if (Date.now() - movedAt > stallMs) throw new Error(`webhook delivery stalled at ${stats.distinct} of ${distinct} distinct events${logFile ? `; see ${logFile}` : ''}`);
    await sleep(20);
  }
}

/**
 * The floor from its own process: `count` signed POSTs to `url` after `warmup` untimed ones,
 * `concurrency` in flight; resolves to `{ seconds, ok }`.
 */
export function runFloor({ url, secret, vin, count, warmup, concurrency }) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [FLOOR_CHILD, url, secret, vin, String(count), String(warmup), String(concurrency)], (error, out, err) => {
      if (error) reject(new Error(`webhook floor failed: ${err || error.message}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)));
    });
  });
}
