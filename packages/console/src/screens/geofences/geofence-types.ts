/** The geofence shapes the console reads and sends, from the contract's schemas (docs/geofences.md). */
import type { EventEnvelope, Geofence, GeofenceBody, GeofenceGeometry as GeometrySchema, GeofencesPage } from '@telematics/contract';
import type { Static } from '@telematics/contract';

export type { Geofence, GeofenceBody, GeofencesPage };
export type GeofenceGeometry = Static<typeof GeometrySchema>;

/** What a map needs to draw a fence: a saved one, or a draft that has no id yet. */
export type FenceShape = Pick<Geofence, 'name' | 'geometry' | 'radius_m' | 'width_m'> & { readonly id: string };

export type FenceKind = 'circle' | 'polygon' | 'corridor';

export type GeofenceEvent = Static<typeof EventEnvelope> & {
  readonly data: { readonly vin?: string; readonly date_time?: string; readonly geofence_name?: string };
};

/** POST /geofences/preview's answer. */
export interface GeofencePreview {
  readonly from: string;
  readonly to: string;
  readonly geofence_id: string | null;
  readonly vehicles: number;
  readonly positions: number;
  readonly truncated: boolean;
  /** More events than the preview answers (the first 1,000). */
  readonly events_truncated: boolean;
  readonly events: readonly GeofenceEvent[];
}

/**
 * The service's bounds for a radius or width (GEOFENCE_METRES in the contract), repeated here as
 * numbers: importing the contract's values would bundle TypeBox into the page.
 */
export const FENCE_METRES = { min: 10, max: 50_000 } as const;

export function kindOf(geometry: GeofenceGeometry): FenceKind {
  return geometry.type === 'Point' ? 'circle' : geometry.type === 'Polygon' ? 'polygon' : 'corridor';
}
