/**
 * What `--sqlite-synchronous full` costs the write path of a command creation on SQLite, side by
 * side with `normal`: the two writes of POST /vehicle-command (its Pending row, committed before
 * the automaker is called, then its status URL), through the service's own store code (dist/:
 * openStore, the write batcher, the command statements), from 16 concurrent creators, rounds of
 * 5 s alternating between the settings on one database file (the order flipped every other pair).
 * No HTTP and no automaker: the store's rate alone, which bounds a SQLite service's creations/s
 * from above. `npm run build` first.
 *
 *   node bench/sqlite-synchronous.mjs [PAIRS]
 */
import { randomUUID } from 'node:crypto';
import { timeOrderedId } from '../dist/domain/time-ordered-id.js';
import { insertCommands } from '../dist/store/commands/insert.js';
import { markInitiatedRows } from '../dist/store/commands/initiate.js';
import { openStore } from '../dist/store/open-store.js';
import { batchedRows } from '../dist/store/write-batcher.js';
import { createFixture } from './lib/fixture.mjs';
import { median } from './lib/report.mjs';

const PAIRS = Number(process.argv[2] ?? 3);
const CREATORS = 16;
const ROUND_MS = 5000;

const fixture = await createFixture({ kind: 'sqlite', vehicles: 1, oemBaseUrl: 'http://127.0.0.1:9' });
const app = await fixture.store.db.selectFrom('applications').select(['id', 'company_id']).executeTakeFirstOrThrow();
const vehicle = await fixture.store.db.selectFrom('vehicles').select(['vin', 'oem']).executeTakeFirstOrThrow();
await fixture.store.close();

/** Creations a second with `synchronous` for one round. */
async function round(synchronous) {
  const store = openStore(fixture.url, { poolSize: 1, sqliteSynchronous: synchronous });
  if (store.sqliteSynchronous !== synchronous) throw new Error(`asked for ${synchronous}, the connection reads ${store.sqliteSynchronous}`);
  let done = 0;
  const until = performance.now() + ROUND_MS;
  const started = performance.now();
  await Promise.all(Array.from({ length: CREATORS }, async () => {
    while (performance.now() < until) {
      const now = Date.now();
      const id = timeOrderedId(now, randomUUID);
      await batchedRows(store, insertCommands, {
        id, application_id: app.id, company_id: app.company_id, vin: vehicle.vin, oem: vehicle.oem, command: 'diagnostics',
        status: 'Pending', detail: '{}', created_at: now, updated_at: now, deadline_at: now + 120_000, code_attempts: 0, poll_attempts: 0,
      });
      await batchedRows(store, markInitiatedRows, { id, statusUrl: `http://127.0.0.1:9/commands/${id}`, firstPoll: now + 1000 });
      done += 1;
    }
  }));
  const rate = done / ((performance.now() - started) / 1000);
  await store.close();
  return rate;
}

const rates = { normal: [], full: [] };
try {
  for (let i = 0; i < PAIRS; i += 1) {
    for (const mode of i % 2 === 0 ? ['normal', 'full'] : ['full', 'normal']) {
      const rate = await round(mode);
      rates[mode].push(rate);
      console.error(`pair ${i + 1}: ${mode} ${Math.round(rate)} creations/s`);
    }
  }
  const normal = median(rates.normal);
  const full = median(rates.full);
  console.log(`SQLite store write path, ${CREATORS} creators, ${PAIRS} pairs of ${ROUND_MS / 1000} s rounds (median creations/s):`);
  console.log(`  normal ${Math.round(normal)} (rounds ${rates.normal.map(Math.round).join(', ')})`);
  console.log(`  full   ${Math.round(full)} (rounds ${rates.full.map(Math.round).join(', ')})`);
  console.log(`  full / normal ${(full / normal).toFixed(2)}`);
} finally {
  await fixture.drop();
}
