/**
 * The body of POST /vehicle-data, written as rows come from the database: `{"<vin>":[{…},…],…}`.
 * Rows are read a page at a time (keyset on the primary key), so memory stays bounded whatever the
 * window holds (20 VINs × 24 h at 10 s is 172,800 records), and each record is serialized by a
 * function built once per request for exactly the requested datapoints.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { STORED_DATAPOINTS } from '../domain/telemetry-record.js';
import { datapointSpec } from '../domain/datapoints.js';
import { checkStoredRow, type OnUnreadableRow, type StoredFlag } from '../domain/stored-record.js';
import { createSpacedLocalFormatter } from '../domain/time.js';
import type { Db } from '../store/connection.js';
import { readTelemetryPage, type TelemetryColumn } from '../store/telemetry/read.js';
import type { VehicleDataPlan } from './plan-vehicle-data.js';

/**
 * Rows per database round trip. 500 rows keep each page short-lived (young-generation garbage):
 * with 5,000, pages were promoted and peak RSS grew ~40 MB per back-to-back full request.
 */
const PAGE_ROWS = 500;
/** Bytes gathered before a chunk is handed to the socket. */
const CHUNK_BYTES = 64 * 1024;

type Row = Record<string, unknown> & { ts: number };
/** `flag` is the row's flag as checkStoredRow read it. */
type Field = (row: Row, vinJson: string, flag: StoredFlag | null) => string;

function flagSerializer(requested: ReadonlySet<string>): (flag: StoredFlag | null) => string {
  return (flag) => {
    if (flag === null) return '{}';
    const entries = Object.entries(flag).filter(([name]) => requested.has(name));
    return entries.length === 0 ? '{}' : JSON.stringify(Object.fromEntries(entries));
  };
}

/** One serializer per requested datapoint, in request order. */
function recordSerializer(datapoints: readonly string[]): Field {
  const requested = new Set(datapoints);
  const serializeFlag = flagSerializer(requested);
  const formatTime = createSpacedLocalFormatter();
  const fields: Field[] = datapoints.map((name) => {
    const key = `${JSON.stringify(name)}:`;
    if (name === 'vin') return (_row, vinJson) => key + vinJson;
    if (name === 'date_time') return (row) => `${key}"${formatTime(row.ts)}"`;
    if (name === 'flag') return (_row, _vinJson, flag) => key + serializeFlag(flag);
    if (datapointSpec(name)?.kind === 'number') {
      return (row) => {
        const v = row[name];
        return key + (v === null || v === undefined ? 'null' : String(v));
      };
    }
    return (row) => {
      const v = row[name];
      return key + (v === null || v === undefined ? 'null' : JSON.stringify(v));
    };
  });
  const [first, ...rest] = fields;
  return (row, vinJson, flag) => {
    let out = `{${first!(row, vinJson, flag)}`;
    for (const field of rest) out += `,${field(row, vinJson, flag)}`;
    return `${out}}`;
  };
}

function columnsFor(datapoints: readonly string[]): TelemetryColumn[] {
  const stored = new Set(STORED_DATAPOINTS.map((d) => d.name));
  const columns = datapoints.filter((d) => stored.has(d)) as TelemetryColumn[];
  if (datapoints.includes('flag')) columns.push('flag');
  return columns;
}

/** Called when a VIN's paging stopped short because a full page gave no instant to continue after (never seen: a guard). */
export type OnPagingStopped = (vin: string, afterTs: number) => void;

/**
 * Where the next page starts: after the page's last instant that is a number, rounded down. A
 * readable row's instant is a whole number, so no readable row lies between that and the last row
 * read; a row SQLite holds with a fractional instant (unreadable) never makes the next page skip
 * the whole millisecond after it, nor a non-number make it ask for nothing.
 */
function nextAfter(afterTs: number, rows: readonly Row[]): number {
  for (let i = rows.length - 1; i >= 0; i--) {
    const raw = rows[i]!.ts as unknown;
    const ts = typeof raw === 'string' ? Number(raw) : raw;
    if (typeof ts === 'number' && Number.isFinite(ts)) return Math.max(afterTs, Math.floor(ts));
  }
  return afterTs;
}

/** A row that cannot be read (checkStoredRow) is left out of the answer and handed to `onUnreadable`. */
export async function* streamVehicleData(
  db: Db, plan: VehicleDataPlan, onUnreadable: OnUnreadableRow, onStopped: OnPagingStopped = () => undefined,
): AsyncGenerator<string | Buffer> {
  const serialize = recordSerializer(plan.datapoints);
  const columns = columnsFor(plan.datapoints);
  let buffer = '{';
  for (const [vinIndex, vin] of plan.vins.entries()) {
    const vinJson = JSON.stringify(vin);
    buffer += `${vinIndex === 0 ? '' : ','}${vinJson}:[`;
    let afterTs = -Infinity;
    let first = true;
    for (;;) {
      // A page is serialized completely before anything is yielded, so its row objects die young
      // (a scavenge frees them) instead of surviving the yields and being promoted.
      const chunks: Buffer[] = [];
      const rows = (await readTelemetryPage(db, vin, plan.window.start, plan.window.end, afterTs, PAGE_ROWS, columns)) as Row[];
      for (const row of rows) {
        const check = checkStoredRow(row);
        if (!check.ok) {
          onUnreadable(vin, row.ts, check.column);
          continue;
        }
        buffer += (first ? '' : ',') + serialize(row, vinJson, check.flag);
        first = false;
        if (buffer.length >= CHUNK_BYTES) {
          chunks.push(Buffer.from(buffer));
          buffer = '';
        }
      }
      let more = rows.length === PAGE_ROWS;
      if (more) {
        const next = nextAfter(afterTs, rows);
        // A page that moves nothing would be read again for ever: this VIN's answer ends here.
        if (next <= afterTs) {
          onStopped(vin, afterTs);
          more = false;
        }
        afterTs = next;
      }
      rows.length = 0;
      for (const chunk of chunks) {
        yield chunk;
        // better-sqlite3 reads synchronously: without yielding to the event loop here, one
        // full request held every other request for its whole duration (2.7 s measured).
        await nextTurn();
      }
      if (!more) break;
    }
    buffer += ']';
  }
  yield `${buffer}}`;
}
