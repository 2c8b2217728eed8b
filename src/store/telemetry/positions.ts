/** Stored positions of one vehicle, for the geofence evaluator. */
import type { NotNull } from 'kysely';
import type { Db } from '../connection.js';
import { recordsAfter } from './read.js';

/** A stored record that has a position, with what deciding a fence crossing reads. */
export interface StoredPosition {
  readonly ts: number;
  readonly latitude: number;
  readonly longitude: number;
  readonly speed: number | null;
  /** Estimated horizontal accuracy, metres; null when the source gave none. */
  readonly position_accuracy_m: number | null;
  /** When the service stored it: a record arriving after the lateness window is reported `late`. */
  readonly received_at: number;
}

/**
 * At most `limit` of a VIN's records with a position in (afterTs, upTo], ascending by instant.
 * A record without one (no fix) is skipped: it never moves a fence's state. The same range of the
 * primary key trip detection reads (`recordsAfter`).
 */
export async function readPositionsAfter(db: Db, vin: string, afterTs: number, limit: number, upTo?: number): Promise<StoredPosition[]> {
  return recordsAfter(db, vin, afterTs, upTo)
    .select(['ts', 'latitude', 'longitude', 'speed', 'position_accuracy_m', 'received_at'])
    .where('latitude', 'is not', null).where('longitude', 'is not', null)
    .$narrowType<{ latitude: NotNull; longitude: NotNull }>()
    .limit(limit).execute();
}
