/**
 * CPU time from /proc (Linux): what a figure costs, apart from how long it took. On a machine
 * whose idle cores wake slowly, a latency-bound loop (the floors with few requests in flight) can
 * swing by several times from one day to the next while the CPU spent per unit of work does not.
 * Resolution: one clock tick (10 ms), so a phase needs a few seconds of work to be read well.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10;

/** A /proc/PID/stat line's fields after the command (which may hold spaces): minflt [7], utime [11], stime [12]. */
const fieldsOfStat = (stat) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** User + system CPU, ms, from a /proc/PID/stat line. */
function cpuMsOfStat(stat) {
  const fields = fieldsOfStat(stat);
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** `read` of one process's stat line; 0 when it is gone or /proc is absent. */
function ofProcess(pid, read) {
  try {
    return read(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}

/** User + system CPU of one process (every thread), ms; 0 when it is gone or /proc is absent. */
export const processCpuMs = (pid) => ofProcess(pid, cpuMsOfStat);

/**
 * Minor page faults of one process so far; 0 when it is gone. They tell a V8 heap that gives its
 * pages back after each scavenge and faults them in again (docs/decisions/0020-young-generation-fixed.md)
 * from one that keeps them.
 */
export const processMinorFaults = (pid) => ofProcess(pid, (stat) => Number(fieldsOfStat(stat)[7]));

/**
 * User + system CPU of each process named `name` (PostgreSQL's server processes), ms by pid. A
 * meter over them (`cpuMeter`) counts the processes alive at its start and stop, and those started
 * in between; one that ended in between is not counted (its connections' work before it ended).
 */
export function cpuOfProcessesNamed(name) {
  const byPid = new Map();
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return byPid;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === name) byPid.set(entry, cpuMsOfStat(stat));
    } catch { /* ended meanwhile */ }
  }
  return byPid;
}

/** ms from `before` to `after`, each a number or a map by pid (processes alive at the end). */
function spent(before, after) {
  if (typeof after === 'number') return after - before;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/**
 * Starts counting the CPU of `parts` (name → function giving cumulative ms, or ms by pid);
 * `stop()` gives each part's ms since the start.
 */
export function cpuMeter(parts) {
  const start = Object.fromEntries(Object.entries(parts).map(([name, read]) => [name, read()]));
  return {
    stop: () => Object.fromEntries(Object.entries(parts).map(([name, read]) => [name, spent(start[name], read())])),
  };
}
