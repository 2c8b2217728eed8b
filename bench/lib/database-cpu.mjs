/**
 * CPU that PostgreSQL spends for one database, from /proc (Linux; the server on this machine):
 * the backends connected to it (pg_stat_activity, by datname) and the server's own processes that
 * belong to no database (checkpointer, background and WAL writers, autovacuum launcher). Other
 * databases' backends are left out: on a shared machine someone else's tests must not count.
 *
 * The service's pool replaces each connection after 60 s and closes idle ones after 10 s, so
 * backends end inside a window; a process that has ended can no longer be read. The meter
 * therefore samples every 250 ms and counts an ended backend up to its last sample (at most
 * 250 ms of its work lost, and a backend about to be replaced is idle).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { cpuOfProcessesNamed, processCpuMs } from './cpu-time.mjs';

const SAMPLE_MS = 250;
const TICK_MS = 10;

/** Whole-server CPU: every `postgres` process plus what the postmaster reaped from ended children. */
function allPostgresMs() {
  const live = cpuOfProcessesNamed('postgres');
  let total = [...live.values()].reduce((s, ms) => s + ms, 0);
  for (const pid of live.keys()) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // The postmaster is the one whose parent is not a postgres process; [13]/[14] are its reaped children's.
      if (!live.has(fields[1])) total += (Number(fields[13]) + Number(fields[14])) * TICK_MS;
    } catch { /* ended meanwhile */ }
  }
  return total;
}

/**
 * A meter of `databaseUrl`'s share of the server, read through `adminUrl`. `start()` begins a
 * window; `stop()` ends it and resolves to `{ ms, allMs }`: this database's ms, and the whole
 * server's (every process and reaped child, any database) as a cross-check.
 */
export async function openDatabaseCpu(adminUrl, databaseUrl) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const pids = async () => (await client.query('select pid from pg_stat_activity where datname = $1 or datname is null', [name])).rows.map((r) => String(r.pid));
  let window;
  const sample = async () => {
    for (const pid of await pids()) {
      const ms = processCpuMs(pid);
      if (ms === 0) continue; // ended between the query and the read
      if (!window.first.has(pid)) window.first.set(pid, window.started ? 0 : ms);
      window.last.set(pid, ms);
    }
  };
  return {
    async start() {
      window = { first: new Map(), last: new Map(), started: false, allMs: allPostgresMs() };
      await sample();
      window.started = true;
      window.timer = setInterval(() => { sample().catch(() => {}); }, SAMPLE_MS);
    },
    async stop() {
      clearInterval(window.timer);
      await sample();
      let ms = 0;
      for (const [pid, last] of window.last) ms += last - window.first.get(pid);
      return { ms, allMs: allPostgresMs() - window.allMs };
    },
    close: () => client.end(),
  };
}
