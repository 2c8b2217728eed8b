/**
 * A record's estimated horizontal position accuracy, in metres: how far the true position may be
 * from the one stored. Not a datapoint of the interface (/vehicle-data never shows it); it is
 * kept with each stored record so a geofence exit can ask for a margin widened by it (D13). Null
 * when the source says nothing usable, and always null for a record without a position.
 */

/**
 * Above this the estimate says nothing a fence could use (a cell-tower fix is a few kilometres
 * off): such a value is taken as no estimate, never as a reason to refuse the record.
 */
export const MAX_POSITION_ACCURACY_M = 100_000;

/**
 * User-equivalent range error of a consumer GNSS receiver, metres: accuracy ≈ HDOP × UERE. About
 * 5 m is the usual figure for single-frequency GPS in the open (an HDOP of 1 gives the ±5 m
 * people see on a clear sky); urban multipath is worse, which the HDOP partly shows.
 */
export const UERE_M = 5;

/** An accuracy as a source reported it, or null: zero (Android's and Traccar Client's "unknown"), negative, not finite or too large. */
export function positionAccuracyOf(raw: unknown): number | null {
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw <= 0 || raw > MAX_POSITION_ACCURACY_M) return null;
  return raw;
}

/** From a horizontal dilution of precision; an HDOP of 0 is a receiver that computed none. */
export function accuracyFromHdop(hdop: unknown): number | null {
  if (typeof hdop !== 'number' || !Number.isFinite(hdop)) return null;
  return positionAccuracyOf(Math.round(hdop * UERE_M * 10) / 10);
}

/**
 * From the number of satellites in the fix, for a source that gives no dilution: coarse steps,
 * deliberately pessimistic. Seven or more usually give an HDOP near 1–2 (≈ 10 m); four to six,
 * the fewest for a 3D fix and a weaker geometry, ≈ 25 m; one to three is a 2D or degraded fix,
 * often off by a street or more, 100 m. Zero satellites is no fix at all: null.
 */
export function accuracyFromSatellites(satellites: number): number | null {
  if (!Number.isFinite(satellites) || satellites <= 0) return null;
  if (satellites >= 7) return 10;
  if (satellites >= 4) return 25;
  return 100;
}

/** The accuracy a record keeps: its source's estimate when the record has a position, else null. */
export function keptPositionAccuracy(raw: unknown, latitude: unknown, longitude: unknown): number | null {
  return latitude === null || latitude === undefined || longitude === null || longitude === undefined ? null : positionAccuracyOf(raw);
}
