/**
 * A telemetry row as the database hands it back, checked before it is written into an answer.
 * The intake only stores rows that pass D8, but a row can still be unreadable: written by hand,
 * by an older version, or through the ingest queue by a publisher that is not this service. One
 * such row must not turn a read into a 500 (a `flag` that is not JSON made every
 * GET /vehicle-data/latest of its company fail until it aged out), so readers skip it and say so.
 */
import { STORED_DATAPOINTS, MAX_TEXT_LENGTH, type FlagEntry, type FlagKind } from './telemetry-record.js';

export type StoredFlag = Readonly<Record<string, FlagEntry>>;

const FLAG_KINDS: ReadonlySet<string> = new Set<FlagKind>(['out of range', 'invalid type']);
const KIND_OF = new Map(STORED_DATAPOINTS.map((d) => [d.name, d.kind]));

/**
 * The `flag` column read back: null when there is none, undefined when it is not what the intake
 * writes (JSON of `{name: {value, flag}}`, names of stored datapoints, `value` a primitive or null).
 */
export function parseStoredFlag(stored: unknown): StoredFlag | null | undefined {
  if (stored === null || stored === undefined) return null;
  if (typeof stored !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  for (const [name, entry] of Object.entries(parsed)) {
    if (!KIND_OF.has(name) || typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
    const { value, flag } = entry as Record<string, unknown>;
    if (typeof flag !== 'string' || !FLAG_KINDS.has(flag) || Object.keys(entry).some((k) => k !== 'value' && k !== 'flag')) return undefined;
    if (value !== null && value !== undefined && typeof value === 'object') return undefined;
  }
  return parsed as StoredFlag;
}

export type StoredRowCheck =
  | { readonly ok: true; readonly flag: StoredFlag | null }
  | { readonly ok: false; readonly column: string };

/**
 * Whether the columns of `row` a reader selected can be written into an answer: `ts` a whole
 * number, numbers finite (PostgreSQL's float8 holds NaN and Infinity; SQLite keeps text in a REAL
 * column), text a string the intake would keep, `flag` as parseStoredFlag reads it. An
 * out-of-range number is readable (it is a number) and is answered as stored.
 */
export function checkStoredRow(row: Readonly<Record<string, unknown>>): StoredRowCheck {
  if ('ts' in row && !Number.isSafeInteger(typeof row.ts === 'string' ? Number(row.ts) : row.ts)) return { ok: false, column: 'ts' };
  let flag: StoredFlag | null = null;
  for (const column in row) {
    const value = row[column];
    if (column === 'flag') {
      const parsed = parseStoredFlag(value);
      if (parsed === undefined) return { ok: false, column };
      flag = parsed;
      continue;
    }
    const kind = KIND_OF.get(column);
    if (kind === undefined || value === null || value === undefined) continue;
    if (kind === 'number' ? typeof value !== 'number' || !Number.isFinite(value) : typeof value !== 'string' || value.length > MAX_TEXT_LENGTH) {
      return { ok: false, column };
    }
  }
  return { ok: true, flag };
}

/** What a reader does with a row it skipped: log it and count it (the HTTP layer decides how). */
export type OnUnreadableRow = (vin: string, ts: unknown, column: string) => void;
