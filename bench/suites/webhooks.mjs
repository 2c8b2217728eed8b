/**
 * Webhook delivery (`telematics serve`, every role, its own process) to a fast receiver on
 * loopback (bench/lib/webhook-receiver.mjs, a third process: a bare node:http server that answers
 * the challenge and 204 to everything else, and keeps each event id's first receipt time). One
 * company, one vehicle, one application whose endpoint (every event type) is registered and
 * verified through the API. Events are `vehicle.online` appended straight into the outbox with
 * appendEvents from this process, as the code that reports a change writes them; the service's
 * dispatcher (a pass every 0.1 s; the endpoint's stream read ahead, at most 4 attempts in flight
 * to one endpoint) sends them. A warm-up of 5,000 events is delivered first: the service's path
 * is long enough that after 1,000 its JIT was still cold, and the next 20,000 spent their first
 * second at a third to half the speed of the rest (measured, receipts per 250 ms). The floor gets
 * the same warm-up.
 *
 * - Delivery rate: N = 20,000 events appended in one appendEvents call; events/s = N / time from
 *   just before the call to the receiver's last first receipt of them (every one must arrive).
 *   Floor: N POSTs to the same receiver from a separate process (bench/lib/webhook-floor.mjs),
 *   each body built, stringified and signed (signatureHeader) as it is sent, 4 in flight through
 *   one keep-alive agent, timed from the first to the last answer after 5,000 untimed ones, with
 *   the service stopped. Target ≥ 0.5. Also printed: duplicates (POSTs of an event id received
 *   before) per 10,000 events the service delivered over the whole suite.
 * - Latency: 200 events appended one at a time, 20 ms apart; each one's latency is from the
 *   instant its appendEvents call returned (committed; Date.now() in this process) to its receipt
 *   (Date.now() in the receiver once the body is in). Both processes read the same clock. The
 *   event's data also carries `appended_at`, Date.now() just before the call. p99 printed, p50 in
 *   the label. The dispatcher's 0.1 s pass bounds it: an event waits for the next pass to be
 *   fanned out.
 * - Backlog drain: with the service stopped, 100,000 events appended; the service started; the
 *   time from its readiness (GET /readyz answered) to the last receipt, and the events/s that is.
 *
 * --quick: N = 2,000 (500 warm-up), 50 latency events, backlog 5,000.
 */
import { join } from 'node:path';
import { createFixture, vinOf } from '../lib/fixture.mjs';
import { startWebhookReceiver } from '../lib/processes.mjs';
import { cpuMeter, cpuOfProcessesNamed, processCpuMs } from '../lib/cpu-time.mjs';
import { percentile } from '../lib/report.mjs';
import {
  eventWriter, receiptsFrom, receiverStats, registerEndpoint, runFloor, startWebhookService, waitForDistinct,
} from '../lib/webhooks.mjs';

export const name = 'webhooks';

/** Attempts the service has in flight to one endpoint (DEFAULT_WEBHOOK_TIMING): the floor's too. */
const PER_ENDPOINT = 4;
const COMPANY = 'bench';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const count = (n) => n.toLocaleString('en-US');

export async function run(ctx) {
  const plan = ctx.quick
    ? { events: 2_000, warmup: 500, latency: 50, gapMs: 20, backlog: 5_000 }
    : { events: 20_000, warmup: 5_000, latency: 200, gapMs: 20, backlog: 100_000 };
  const fixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles: 1 });
  const log = (what) => join(fixture.scratch, `${what}.log`);
  const vin = vinOf(0);
  const append = eventWriter(fixture.store.db, { companyId: COMPANY, vin });
  let receiver;
  let service;
  try {
    receiver = await startWebhookReceiver({ logFile: log('receiver') });
    service = await startWebhookService({ database: fixture.url, keys: fixture.keys, logFile: log('service') });
    const endpoint = await registerEndpoint(service.url, `${receiver.url}/hook`);
    const delivered = async (events, what) => {
      const from = (await receiverStats(receiver.url)).distinct;
      const meter = cpuMeter(cpuParts(ctx.kind, service, receiver));
      const t0 = Date.now();
      const { ids } = await append(events);
      await waitForDistinct(receiver.url, from + events, { logFile: service.logFile });
      const cpu = meter.stop();
      return { t0, lastAt: lastReceipt(await receiptsFrom(receiver.url, from), ids, what), cpu };
    };
    await delivered(plan.warmup, 'warm-up');

    // Delivery rate: N events in one append, to the last receipt.
    const rate = await delivered(plan.events, 'delivery rate');
    const serviceSeconds = (rate.lastAt - rate.t0) / 1000;
    const serviceRate = plan.events / serviceSeconds;
    ctx.log(`delivery: ${count(plan.events)} events in ${serviceSeconds.toFixed(2)} s (${Math.round(serviceRate)}/s); CPU per event: ${cpuText(rate.cpu, plan.events)}`);

    // Latency: one event at a time, commit to receipt.
    const latencyFrom = (await receiverStats(receiver.url)).distinct;
    const committed = new Map();
    const appendMs = [];
    for (let i = 0; i < plan.latency; i += 1) {
      const { ids, appendedAt, committedAt } = await append(1);
      committed.set(ids[0], committedAt);
      appendMs.push(committedAt - appendedAt);
      await sleep(plan.gapMs);
    }
    await waitForDistinct(receiver.url, latencyFrom + plan.latency, { logFile: service.logFile });
    const latencies = [];
    for (const [id, at] of await receiptsFrom(receiver.url, latencyFrom)) {
      if (!committed.has(id)) throw new Error(`latency: the receiver got an event that was not appended (${id})`);
      latencies.push(at - committed.get(id));
    }
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    ctx.log(`latency: p50 ${p50} ms, p99 ${p99} ms, max ${Math.max(...latencies)} ms (appendEvents took ${percentile(appendMs, 50)} ms p50)`);
    await service.stop();
    service = undefined;

    // The floor, with the service stopped.
    const floor = await runFloor({ url: `${receiver.url}/hook`, secret: endpoint.secret, vin, count: plan.events, warmup: plan.warmup, concurrency: PER_ENDPOINT });
    if (floor.ok !== plan.events) throw new Error(`floor: ${floor.ok} of ${plan.events} POSTs answered 2xx`);
    const floorRate = plan.events / floor.seconds;
    ctx.log(`floor: ${count(plan.events)} signed POSTs in ${floor.seconds.toFixed(2)} s (${Math.round(floorRate)}/s)`);

    // Backlog: appended with the service stopped, drained from its start.
    const backlogFrom = (await receiverStats(receiver.url)).distinct;
    const { ids: backlogIds } = await append(plan.backlog);
    const spawnedAt = Date.now();
    service = await startWebhookService({ database: fixture.url, keys: fixture.keys, logFile: log('service-backlog') });
    const readyAt = Date.now();
    const drainMeter = cpuMeter(cpuParts(ctx.kind, service, receiver));
    await waitForDistinct(receiver.url, backlogFrom + plan.backlog, { stallMs: 60_000, logFile: service.logFile });
    const drainCpu = drainMeter.stop();
    const drainSeconds = (lastReceipt(await receiptsFrom(receiver.url, backlogFrom), backlogIds, 'backlog') - readyAt) / 1000;
    const drainRate = plan.backlog / drainSeconds;
    ctx.log(`backlog: ${count(plan.backlog)} events in ${drainSeconds.toFixed(2)} s after the service was ready (${Math.round(drainRate)}/s; it started in ${((readyAt - spawnedAt) / 1000).toFixed(1)} s); CPU per event: ${cpuText(drainCpu, plan.backlog)}`);
    await service.stop();
    service = undefined;

    const stats = await receiverStats(receiver.url);
    const byService = plan.warmup + plan.events + plan.latency + plan.backlog;
    const duplicates = stats.posts - stats.distinct;
    ctx.log(`receiver: ${stats.posts} POSTs, ${stats.distinct} distinct ids (the challenge and ${plan.warmup + plan.events} floor POSTs included): ${duplicates} duplicates`);

    const fig = (figure, value, floorValue, target, digits) => ({ section: ctx.section, suite: name, name: figure, service: value, floor: floorValue, target, digits });
    return [
      fig(`events/s delivered, append of ${count(plan.events)} to the last receipt vs signed POSTs from a separate process (${PER_ENDPOINT} in flight, keep-alive)`, serviceRate, floorRate, { op: '>=', value: 0.5 }),
      fig(`  duplicates per 10,000 events delivered (${count(byService)} delivered, ${duplicates} duplicates)`, (duplicates / byService) * 10_000, undefined, undefined, 1),
      fig(`delivery latency p99, ms, commit to receipt (${plan.latency} single events ${plan.gapMs} ms apart; p50 ${p50} ms)`, p99, undefined, undefined, 0),
      fig(`backlog drain, events/s (${count(plan.backlog)} appended with the service stopped; from its readiness to the last receipt)`, drainRate, undefined, undefined, 0),
      fig('  backlog drain, seconds', drainSeconds, undefined, undefined, 1),
      fig(`  CPU per event delivered, µs, service + database (backlog drain; receiver not counted: ${cpuText(drainCpu, plan.backlog)})`, (((drainCpu.service ?? 0) + (drainCpu.database ?? 0)) * 1000) / plan.backlog, undefined, undefined, 0),
    ];
  } finally {
    await service?.stop();
    await receiver?.stop();
    await fixture.drop();
  }
}

/** The last receipt time among `receipts`, which must be exactly the events `ids`. */
function lastReceipt(receipts, ids, what) {
  const expected = new Set(ids);
  let last = 0;
  for (const [id, at] of receipts) {
    if (!expected.delete(id)) throw new Error(`${what}: the receiver got an event that was not appended (${id})`);
    last = Math.max(last, at);
  }
  if (expected.size > 0) throw new Error(`${what}: ${expected.size} events not received`);
  return last;
}

/**
 * What to count CPU of during a phase: the service (every thread), the receiver and, on
 * PostgreSQL, every server process (SQLite works inside the service). Linux only; elsewhere 0.
 */
function cpuParts(kind, service, receiver) {
  const parts = { service: () => processCpuMs(service.pid), receiver: () => processCpuMs(receiver.pid) };
  if (kind === 'postgres') parts.database = () => cpuOfProcessesNamed('postgres');
  return parts;
}

/** `service 37 µs, database 40 µs, receiver 27 µs` */
function cpuText(cpu, events) {
  return Object.entries(cpu).map(([part, ms]) => `${part} ${Math.round((ms * 1000) / events)} µs`).join(', ');
}
