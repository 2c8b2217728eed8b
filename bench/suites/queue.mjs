/**
 * Queued ingest (`--ingest-queue`) against direct ingest, in the same run on the same machine.
 *
 * Three modes, each on the same database with its own time window (so every record is new): the
 * service writing in the request (`--role api`, as today), and an edge (`--role api
 * --ingest-queue`) with a writers process (`--role writers`) on one NATS server (R1) and on a
 * cluster of three (R3). No other worker runs in any mode. 200 vehicles; bodies of 500 records.
 *
 * - End to end: N bodies from autocannon (4 connections, `amount`), timed from the first request
 *   to the moment the last record is readable in the database (polled every 20 ms).
 *   records/s = records / that time. POST /ingest p50 and p99 are autocannon's for those bodies.
 * - Lag: during the same load, a probe sends 10 records every 100 ms and polls (every 5 ms) until
 *   they are readable; lag = readable − answered. p99 of the probes. Direct ingest's lag is
 *   ~0 by construction (stored before the answer), so its floor is direct ingest's own p99
 *   answer time: what a caller waited for the same guarantee of readable data.
 * - Drain (queued modes): the writers stopped, D bodies are queued, the writers start again;
 *   records/s from their readiness to the last record readable. Floor: direct end to end.
 *
 * No targets: the figures say what the queue costs.
 * --quick: 60 vehicles, 20 bodies end to end, 10 drained, R3 included.
 */
import { join } from 'node:path';
import { createFixture, INGEST_KEY, OEM, vinOf } from '../lib/fixture.mjs';
import { assertClean, load } from '../lib/load.mjs';
import { startNats } from '../lib/nats.mjs';
import { startService } from '../lib/processes.mjs';
import { writeFileSync } from 'node:fs';
import { syntheticIngestBodies, syntheticRecord, telemetryCount } from '../lib/synthetic-telemetry.mjs';
import { percentile } from '../lib/report.mjs';

export const name = 'queue';

const HOUR = 3_600_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function run(ctx) {
  const quick = ctx.quick;
  const vehicles = quick ? 60 : 200;
  const bodies = quick ? 20 : 200;
  const drainBodies = quick ? 10 : 200;
  const connections = 4;
  const fixture = await createFixture({ kind: ctx.kind, adminUrl: ctx.adminUrl, vehicles });
  const log = (what) => join(fixture.scratch, `${what}.log`);
  const processes = [];
  let window = Math.floor(Date.now() / 1000) * 1000 - 60 * HOUR;
  /** Bodies of instants no earlier mode used: each window is an hour. */
  const nextBodies = (count) => {
    const from = window;
    window += HOUR;
    const made = syntheticIngestBodies({ vehicles: Array.from({ length: vehicles }, (_, i) => i), vinOf, from, to: from + HOUR - 1000, keep: () => true, maxBodies: count });
    if (made.length !== count) throw new Error(`only ${made.length} bodies`);
    return made;
  };
  const send = async (url, list, what) => {
    const bodiesFile = join(fixture.scratch, `${what.replace(/\W+/g, '-')}.ndjson`);
    writeFileSync(bodiesFile, `${list.join('\n')}\n`);
    const [r] = await load([{
      name: what, url: `${url}/ingest/${OEM}`, method: 'POST', bodiesFile, amount: list.length, connections,
      headers: { authorization: `Bearer ${INGEST_KEY}`, 'content-type': 'application/json' },
    }], 1);
    assertClean(r, what);
    if (r.ok !== list.length) throw new Error(`${what}: ${r.ok} of ${list.length} answered`);
    return r;
  };
  const readable = async (expected, limitMs = 300_000) => {
    const started = Date.now();
    for (;;) {
      const n = await telemetryCount(fixture.store.db);
      if (n >= expected) return Date.now();
      if (Date.now() - started > limitMs) throw new Error(`${n} of ${expected} rows readable after ${limitMs / 1000} s`);
      await sleep(20);
    }
  };

  /** 10 records of one vehicle every 100 ms while `running()`; each one's answered → readable time. */
  const probe = async (url, running) => {
    const lags = [];
    let ts = window;
    window += HOUR;
    let k = 0;
    while (running()) {
      const vin = vinOf(k++ % vehicles);
      const records = Array.from({ length: 10 }, (_, i) => syntheticRecord(vin, 0, ts + i * 1000));
      ts += 10_000;
      const res = await fetch(`${url}/ingest/${OEM}`, { method: 'POST', headers: { authorization: `Bearer ${INGEST_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ records }) });
      if (res.status !== 200) throw new Error(`probe: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      const answered = Date.now();
      const last = ts - 1000;
      for (;;) {
        const row = await fixture.store.db.selectFrom('telemetry').select('ts').where('vin', '=', vin).where('ts', '=', last).executeTakeFirst();
        if (row) break;
        if (Date.now() - answered > 60_000) throw new Error('probe record not readable in 60 s');
        await sleep(5);
      }
      lags.push(Date.now() - answered);
      await sleep(100);
    }
    return { lags, records: lags.length * 10 };
  };

  const measure = async (mode) => {
    let nats;
    let edge;
    let writers;
    const queueSettings = mode.nats === 0 ? {} : {
      TELEMATICS_INGEST_QUEUE: '', TELEMATICS_INGEST_QUEUE_REPLICAS: String(mode.nats), TELEMATICS_INGEST_QUEUE_PARTITIONS: '4',
    };
    try {
      if (mode.nats > 0) {
        nats = await startNats(mode.nats);
        queueSettings.TELEMATICS_INGEST_QUEUE = nats.urls;
      }
      const startWriters = async () => startService({
        database: fixture.url, keys: fixture.keys, logFile: log(`writers-${mode.key}`), opsOnly: true, settings: { ...queueSettings, TELEMATICS_ROLE: 'writers' },
      });
      edge = await startService({ database: fixture.url, keys: fixture.keys, logFile: log(`edge-${mode.key}`), settings: { ...queueSettings, TELEMATICS_ROLE: 'api' } });
      processes.push(edge);
      if (mode.nats > 0) processes.push((writers = await startWriters()));

      // Warm-up: a few bodies, stored.
      const warm = nextBodies(5);
      const before = await telemetryCount(fixture.store.db);
      await send(edge.url, warm, `${mode.key} warm-up`);
      await readable(before + warm.length * 500);

      const list = nextBodies(bodies);
      const start = await telemetryCount(fixture.store.db);
      let loading = true;
      const probing = probe(edge.url, () => loading);
      const t0 = Date.now();
      const r = await send(edge.url, list, `${mode.key} end to end`);
      loading = false;
      const probed = await probing;
      const t1 = await readable(start + list.length * 500 + probed.records);
      const rate = (list.length * 500) / ((t1 - t0) / 1000);
      const figures = { rate, p50: r.p50, p99: r.p99, lagP99: percentile(probed.lags, 99), lagP50: percentile(probed.lags, 50) };
      ctx.log(`${mode.label}: ${Math.round(rate).toLocaleString('en-US')} records/s end to end; POST p50 ${r.p50} ms, p99 ${r.p99} ms; lag p50 ${figures.lagP50} ms, p99 ${figures.lagP99} ms (${probed.lags.length} probes)`);

      if (writers) {
        await writers.stop();
        const backlog = nextBodies(drainBodies);
        const held = await telemetryCount(fixture.store.db);
        await send(edge.url, backlog, `${mode.key} queued while no writer runs`);
        if ((await telemetryCount(fixture.store.db)) !== held) throw new Error('rows stored with no writer running');
        writers = await startWriters();
        processes.push(writers);
        const d0 = Date.now();
        const d1 = await readable(held + backlog.length * 500);
        figures.drain = (backlog.length * 500) / ((d1 - d0) / 1000);
        ctx.log(`${mode.label}: drained ${backlog.length * 500} records at ${Math.round(figures.drain).toLocaleString('en-US')} records/s`);
      }
      return figures;
    } finally {
      await writers?.stop();
      await edge?.stop();
      await nats?.close();
    }
  };

  try {
    const direct = await measure({ key: 'direct', label: 'direct', nats: 0 });
    const r1 = await measure({ key: 'r1', label: 'queued, 1 NATS server', nats: 1 });
    const r3 = await measure({ key: 'r3', label: 'queued, 3 NATS servers (R3)', nats: 3 });
    const fig = (figure, service, floor, digits = 0) => ({ section: ctx.section, suite: name, name: figure, service, floor, digits });
    return [
      fig('ingest end to end, records/s: queued (1 NATS server) vs direct', r1.rate, direct.rate),
      fig('ingest end to end, records/s: queued (3 NATS servers, R3) vs direct', r3.rate, direct.rate),
      fig('POST /ingest p50 ms: queued (1 NATS) vs direct', r1.p50, direct.p50, 1),
      fig('POST /ingest p99 ms: queued (1 NATS) vs direct', r1.p99, direct.p99, 1),
      fig('POST /ingest p99 ms: queued (R3) vs direct', r3.p99, direct.p99, 1),
      fig('record answered → readable, p99 ms: queued (1 NATS) vs direct POST p99', r1.lagP99, direct.p99, 1),
      fig('record answered → readable, p99 ms: queued (R3) vs direct POST p99', r3.lagP99, direct.p99, 1),
      fig('drain after an outage, records/s: 1 NATS server vs direct end to end', r1.drain, direct.rate),
      fig('drain after an outage, records/s: R3 vs direct end to end', r3.drain, direct.rate),
    ];
  } finally {
    for (const p of processes) await p.stop().catch(() => {});
    await fixture.drop();
  }
}
