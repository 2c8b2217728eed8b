/**
 * The intake's checks, again, on rows a writer took from the ingest queue. The edge checked them
 * before publishing, but the queue is not the edge: anyone who may publish to its subjects can
 * put any bytes there (docs/scaling.md, "Securing the queue"). So a row is stored only if it is
 * exactly what an edge of this service writes: known columns, a valid VIN, a whole-second instant
 * not in the future, values D8 keeps as they are (an edge sends corrected
 * rows, so a value D8 would null means the row is not an edge's), a position accuracy the intake
 * would keep, a `flag` as the intake writes it, and a vehicle of the source the row travels with,
 * read from the database. Anything else is refused whole, with a reason, and never reaches an
 * insert. `received_at` is the one value taken from the message as it is, clamped to the writer's
 * clock, so it is never later than when the row was stored.
 */
import { parseStoredFlag } from '../domain/stored-record.js';
import { checkIncomingRecord, STORED_DATAPOINTS } from '../domain/telemetry-record.js';
import { isValidVin } from '../domain/vin.js';
import type { StoreConnection } from '../store/connection.js';
import { UNNEST_COLUMN_TYPES, type TelemetryRow } from '../store/telemetry/insert.js';
import { queuedSourceVehicles, type TelemetrySource } from './telemetry-source.js';

/** Why a queued row was refused, as the metric labels it: not a row's shape, refused by D8, or not the source's vehicle. */
export type RefusalKind = 'malformed' | 'invalid' | 'not the source\'s vehicle';

export interface QueuedRowRefusal {
  readonly kind: RefusalKind;
  readonly reason: string;
  /** The row's VIN and instant, when they are well-formed (never a payload). */
  readonly vin?: string;
  readonly ts?: number;
}

export interface RecheckedRows {
  readonly rows: TelemetryRow[];
  readonly refused: QueuedRowRefusal[];
}

const COLUMNS: ReadonlySet<string> = new Set(Object.keys(UNNEST_COLUMN_TYPES));
const VALUE_COLUMNS = STORED_DATAPOINTS.map((d) => d.name);

export async function recheckQueuedRows(
  store: StoreConnection, source: TelemetrySource, given: readonly unknown[], now: number,
): Promise<RecheckedRows> {
  const refused: QueuedRowRefusal[] = [];
  const shaped: TelemetryRow[] = [];
  for (const raw of given) {
    // Not the retention: a row the edge took may have aged past it in the queue, which storage
    // drops as the retention sweep would (storeTelemetryRows), without calling it refused.
    const checked = checkRow(raw, now);
    if ('kind' in checked) refused.push(checked);
    else shaped.push(checked);
  }
  if (shaped.length === 0) return { rows: [], refused };
  const vehicles = await queuedSourceVehicles(store, source);
  const rows: TelemetryRow[] = [];
  for (const row of shaped) {
    if (vehicles.has(row.vin)) rows.push(row);
    else refused.push({ kind: 'not the source\'s vehicle', reason: vehicles.refusal(row.vin), vin: row.vin, ts: row.ts });
  }
  return { rows, refused };
}

/** One row's shape and D8, rebuilt from the known columns only (nothing else of the message reaches the insert). */
function checkRow(raw: unknown, now: number): TelemetryRow | QueuedRowRefusal {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { kind: 'malformed', reason: 'not an object' };
  const input = raw as Record<string, unknown>;
  const { vin, ts, received_at: receivedAt } = input;
  if (!isValidVin(vin)) return { kind: 'malformed', reason: 'vin must be a 17-character VIN' };
  if (typeof ts !== 'number' || !Number.isSafeInteger(ts) || ts % 1000 !== 0) return { kind: 'malformed', reason: 'ts must be whole seconds in epoch ms', vin };
  const at = { vin, ts };
  if (typeof receivedAt !== 'number' || !Number.isSafeInteger(receivedAt)) return { kind: 'malformed', reason: 'received_at must be epoch ms', ...at };
  const unknown = Object.keys(input).find((column) => !COLUMNS.has(column));
  if (unknown !== undefined) return { kind: 'malformed', reason: 'a column that is not a telemetry column', ...at };
  const values: Record<string, unknown> = {};
  for (const name of VALUE_COLUMNS) if (input[name] !== undefined) values[name] = input[name];
  // Absent in a message of an edge that predates the column: unknown, as null is.
  const accuracy = input.position_accuracy_m ?? null;
  if (accuracy !== null && typeof accuracy !== 'number') return { kind: 'malformed', reason: 'position_accuracy_m must be a number or null', ...at };
  const result = checkIncomingRecord({ vin, ts, values, positionAccuracyM: accuracy }, now, Number.NEGATIVE_INFINITY);
  if (!result.ok) return { kind: 'invalid', reason: result.reason, ...at };
  // The intake keeps an accuracy only when usable and beside a position: anything else is not an edge's.
  if (accuracy !== null && result.record.positionAccuracyM !== accuracy) return { kind: 'invalid', reason: 'position_accuracy_m: out of range or without a position', ...at };
  if (result.record.flag !== null) {
    const [name, entry] = Object.entries(result.record.flag)[0]!;
    return { kind: 'invalid', reason: `${name}: ${entry.flag}`, ...at };
  }
  const flag = parseStoredFlag(input.flag);
  if (flag === undefined) return { kind: 'malformed', reason: 'flag is not a flag the intake writes', ...at };
  // A flagged datapoint is stored as null (D8): a value beside its flag is not the intake's.
  if (flag !== null && Object.keys(flag).some((name) => values[name] !== null && values[name] !== undefined)) {
    return { kind: 'malformed', reason: 'flag names a datapoint that has a value', ...at };
  }
  // received_at is the edge's clock, as the message says: never later than the writer's own.
  return {
    vin, ts, ...result.record.values, flag: flag === null ? null : JSON.stringify(flag), received_at: Math.min(receivedAt, now),
    ...(result.record.positionAccuracyM !== undefined && { position_accuracy_m: result.record.positionAccuracyM }),
  } as TelemetryRow;
}
