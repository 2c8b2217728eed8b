import type { Clock } from '../domain/clock.js';
import type { DriftRules } from '../domain/geofences/judge-fence.js';
import type { StoreConnection } from '../store/connection.js';

/** What the /geofences use cases are given (the configuration's part in `settings`). */
export interface GeofenceDeps {
  readonly store: StoreConnection;
  readonly clock: Clock;
  readonly settings: GeofenceSettings;
}

export interface GeofenceSettings {
  /** Fences one company may have (`--max-geofences-per-company`). */
  readonly maxPerCompany: number;
  /** What the preview judges by: the evaluator's own rules (absent: D13's defaults). */
  readonly drift?: { readonly rules: DriftRules; readonly latenessMs: number };
}
