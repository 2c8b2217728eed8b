/**
 * Request bodies for a load run that sends each body once (load-child.mjs: `bodiesFile`, with
 * `amount` the number of lines): serialized before the run, so the timing holds none of it.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** Writes POST /ingest bodies, {"records": [...]} of `batch` records each, one per line; returns how many. */
export function writeIngestBodies(file, records, batch = 500) {
  const fd = openSync(file, 'w');
  let bodies = 0;
  try {
    for (let i = 0; i < records.length; i += batch) {
      writeSync(fd, `${JSON.stringify({ records: records.slice(i, i + batch) })}\n`);
      bodies += 1;
    }
  } finally {
    closeSync(fd);
  }
  return bodies;
}
