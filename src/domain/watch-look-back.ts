/** Where the evaluator starts judging a vehicle (geofences/geofence-watch.ts), and where the no_data sweep dates a cursor it creates. */

/** Where a vehicle never judged starts. */
export const FIRST_LOOK_BACK_MS = 60 * 60_000;
/**
 * How far behind now a cursor may start: a vehicle left unwatched for long (its company's only
 * rule switched off for a month) is not judged over all of it when watched again.
 */
export const MAX_BEHIND_MS = 24 * 60 * 60_000;
