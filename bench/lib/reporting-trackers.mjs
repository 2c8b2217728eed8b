/**
 * The bench's side of reporting-trackers-child.mjs: forks the generator, and turns its messages
 * into calls that resolve with its answers (an error of the child rejects, and so does its exit).
 */
import { fork } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./reporting-trackers-child.mjs', import.meta.url));

/** A generator process holding one logged-in tracker connection per IMEI, to `port` on 127.0.0.1. */
export async function openReportingTrackers({ port, imeis, logFile }) {
  const fd = openSync(logFile, 'a');
  const child = fork(CHILD, [], { stdio: ['ignore', fd, fd, 'ipc'] });
  closeSync(fd);
  let pending;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.on('message', (m) => {
    const p = pending;
    pending = undefined;
    if (m.type === 'error') p?.reject(new Error(`tracker generator: ${m.message}`));
    else p?.resolve(m);
  });
  child.once('exit', (code) => pending?.reject(new Error(`tracker generator exited with ${code}; see ${logFile}`)));
  const ask = (message) => new Promise((resolve, reject) => {
    pending = { resolve, reject };
    child.send(message);
  });
  let seconds;
  try {
    ({ seconds } = await ask({ type: 'open', port, imeis }));
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    pid: child.pid,
    loginSeconds: seconds,
    /** Starts every tracker's cycle of one record per `periodMs`. */
    report: (periodMs) => ask({ type: 'report', periodMs }),
    /** Stops sending, waits for every outstanding ack; resolves to the totals and latencies. */
    drain: () => ask({ type: 'drain' }),
    async close() {
      if (child.exitCode !== null) return;
      await ask({ type: 'close' }).catch(() => {});
      await exited;
    },
  };
}
