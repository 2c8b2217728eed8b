/**
 * WAL checkpoints in a thread of their own, for the service's connection. By itself SQLite
 * checkpoints on the commit that takes the WAL past 1,000 pages, in the thread that commits: the
 * service's event loop, which then copies ~4 MB of pages into the database file while every
 * request waits. Measured (docs/decisions/0017): half of SQLite's time per command creation
 * (inserting and initiating 16 commands a commit: 122 µs a creation with checkpoints on the
 * commit, 58 µs without). Here a thread with a connection of its own runs a passive checkpoint
 * every 100 ms (it copies what it can without waiting for the writer), and the service's
 * connection checkpoints by itself only past a backstop of 10,000 pages (the default 1,000 again
 * should the thread end). Durability is unchanged: commits are in the WAL either way.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

const INTERVAL_MS = 100;
const BACKSTOP_PAGES = 10_000;
const DEFAULT_PAGES = 1_000;

/** The thread: CommonJS, evaluated, so it needs no file of its own next to the compiled code. */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try { checkpoint.all(); } catch { /* busy: the next pass tries again; the backstop covers a thread that never can */ }
}, workerData.intervalMs);
parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface BackgroundCheckpoints {
  close(): Promise<void>;
}

export function checkpointInBackground(sqlite: BetterSqlite3.Database, file: string): BackgroundCheckpoints {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { module, file, intervalMs: INTERVAL_MS } });
  // A service that never closes its store can still exit.
  worker.unref();
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  let closing = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => {
    if (!closing && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
    resolve();
  }));
  // A thread that failed (it could not open the file, say) has ended: the exit handler restores the default.
  worker.on('error', () => {});
  return {
    async close() {
      closing = true;
      // Held again while it ends: an unreferenced thread awaited here would let the process
      // exit mid-close (with code 0, whatever the caller was about to report).
      worker.ref();
      worker.postMessage('close');
      await exited;
    },
  };
}
