/** A circle fence compiled (compile-fence.ts): the haversine distance to its center, less its radius. */
import type { Bounds, CompiledFence, FenceShape } from './fence-shape.js';
import { boundsOf, EARTH_RADIUS_M, haversineM, lonBeside, lonDegreesWithin, METRES_PER_DEGREE, nearestT, RAD } from './fence-geometry.js';

type Circle = Extract<FenceShape, { kind: 'circle' }>;

export class CircleFence implements CompiledFence {
  readonly bounds: Bounds;
  readonly innerCapM: number;
  private readonly lat: number;
  private readonly lon: number;
  private readonly radiusM: number;
  private readonly kx: number;

  constructor(readonly shape: Circle) {
    [this.lon, this.lat] = shape.center;
    this.radiusM = shape.radiusM;
    this.innerCapM = shape.radiusM / 2;
    this.kx = Math.cos(this.lat * RAD);
    const dLat = shape.radiusM / METRES_PER_DEGREE;
    // The exact longitude extent of a spherical cap, or the poleward-cosine span when larger.
    const ratio = Math.sin(shape.radiusM / EARTH_RADIUS_M) / this.kx;
    const dLon = ratio >= 1 ? 360 : Math.max(Math.asin(ratio) / RAD, lonDegreesWithin(shape.radiusM, this.lat));
    this.bounds = boundsOf(this.lon - dLon, this.lat - dLat, this.lon + dLon, this.lat + dLat);
  }

  signedDistanceM(lat: number, lon: number): number {
    return haversineM(lat, lon, this.lat, this.lon) - this.radiusM;
  }

  /**
   * The segment's point nearest the center is found in the flat metric at the center's latitude,
   * then its distance measured by haversine, as signedDistanceM measures.
   */
  segmentEntersM(fromLat: number, fromLon: number, toLat: number, toLon: number, depthM: number): boolean {
    const reach = this.radiusM - depthM;
    if (reach < 0) return false;
    const aLon = lonBeside(fromLon, this.lon);
    const bLon = lonBeside(toLon, aLon);
    const kx = this.kx;
    const t = nearestT(0, 0, (aLon - this.lon) * kx, fromLat - this.lat, (bLon - aLon) * kx, toLat - fromLat);
    return haversineM(fromLat + t * (toLat - fromLat), aLon + t * (bLon - aLon), this.lat, this.lon) <= reach;
  }
}
