/**
 * A geofence's shape as the service keeps it (D13), and what the evaluator asks of a shape once it
 * is compiled for measuring. Positions are [longitude, latitude] as GeoJSON writes them (WGS 84);
 * distances are metres. Pure: no I/O.
 */

/** [longitude, latitude], degrees. */
export type LonLat = readonly [number, number];

export type FenceShape =
  | { readonly kind: 'circle'; readonly center: LonLat; readonly radiusM: number }
  /** The outer ring first, then its holes; each ring closed (first position = last). */
  | { readonly kind: 'polygon'; readonly rings: readonly (readonly LonLat[])[] }
  /** A corridor: the points within widthM / 2 of the line. */
  | { readonly kind: 'corridor'; readonly line: readonly LonLat[]; readonly widthM: number };

/** Longitude and latitude bounds, degrees: [minLon, minLat, maxLon, maxLat]. */
export type Bounds = readonly [number, number, number, number];

/** A shape ready for the evaluator's questions, answered without allocating. */
export interface CompiledFence {
  readonly shape: FenceShape;
  readonly bounds: Bounds;
  /**
   * The depth a position must reach inside the boundary to count as inside, at most: half the
   * shape's inner extent (a circle's radius, a corridor's half width, a polygon's equivalent
   * radius), so a fence smaller than the hysteresis margin can still be entered.
   */
  readonly innerCapM: number;
  /** Metres from the boundary: negative inside (holes are outside), positive outside. */
  signedDistanceM(lat: number, lon: number): number;
  /**
   * Whether the straight segment between two positions (both outside) passes through the fence
   * at least `depthM` inside its boundary somewhere: the crossing between sparse positions.
   */
  segmentEntersM(fromLat: number, fromLon: number, toLat: number, toLon: number, depthM: number): boolean;
}
