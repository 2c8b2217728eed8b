/**
 * A corridor fence compiled (compile-fence.ts): the points within half its width of its line, so
 * its ends are round, as a buffer's are.
 */
import type { Bounds, CompiledFence, FenceShape } from './fence-shape.js';
import { boundsOf, haversineM, LonLatPaths, lonBeside, lonDegreesWithin, METRES_PER_DEGREE, nearestT, RAD, segmentsMeet } from './fence-geometry.js';

type Corridor = Extract<FenceShape, { kind: 'corridor' }>;

export class CorridorFence implements CompiledFence {
  readonly bounds: Bounds;
  readonly innerCapM: number;
  private readonly line: LonLatPaths;
  private readonly halfM: number;

  constructor(readonly shape: Corridor) {
    this.halfM = shape.widthM / 2;
    this.innerCapM = shape.widthM / 4;
    this.line = new LonLatPaths([shape.line], shape.line[0]?.[0] ?? 0);
    const [minLon, minLat, maxLon, maxLat] = this.line.box();
    const dLat = this.halfM / METRES_PER_DEGREE;
    const dLon = lonDegreesWithin(this.halfM, Math.max(Math.abs(minLat), Math.abs(maxLat)));
    this.bounds = boundsOf(minLon - dLon, minLat - dLat, maxLon + dLon, maxLat + dLat);
  }

  signedDistanceM(lat: number, lon: number): number {
    return this.line.nearestM(lat, lonBeside(lon, this.line.refLon)) - this.halfM;
  }

  /**
   * The distance between the segment and the line: zero where they meet; else the closest pair of
   * points, chosen in the flat metric at the segment's middle latitude among each edge's four
   * endpoint-to-segment distances, then measured by haversine.
   */
  segmentEntersM(fromLat: number, fromLon: number, toLat: number, toLon: number, depthM: number): boolean {
    const reach = this.halfM - depthM;
    if (reach < 0) return false;
    const c = this.line.coords;
    const n = c.length / 2;
    const aLon = lonBeside(fromLon, this.line.refLon);
    const bLon = lonBeside(toLon, aLon);
    const kx = Math.cos(((fromLat + toLat) / 2) * RAD);
    // Flat coordinates with the segment's start at the origin.
    const sx = (bLon - aLon) * kx, sy = toLat - fromLat;
    let best = Infinity;
    let pLat = 0, pLon = 0, qLat = 0, qLon = 0;
    for (let i = 0; i < (n === 1 ? 1 : n - 1); i += 1) {
      const j = n === 1 ? i : i + 1;
      const cLon = c[i * 2]!, cLat = c[i * 2 + 1]!, dLon = c[j * 2]!, dLat = c[j * 2 + 1]!;
      const cx = (cLon - aLon) * kx, cy = cLat - fromLat;
      const ex = (dLon - cLon) * kx, ey = dLat - cLat;
      if (segmentsMeet(0, 0, sx, sy, cx, cy, cx + ex, cy + ey)) return true;
      // The segment's two ends against the edge, the edge's two ends against the segment.
      for (let k = 0; k < 4; k += 1) {
        const onEdge = k < 2;
        const px = onEdge ? (k === 0 ? 0 : sx) : k === 2 ? cx : cx + ex;
        const py = onEdge ? (k === 0 ? 0 : sy) : k === 2 ? cy : cy + ey;
        const t = onEdge ? nearestT(px, py, cx, cy, ex, ey) : nearestT(px, py, 0, 0, sx, sy);
        const mx = onEdge ? cx + t * ex : t * sx;
        const my = onEdge ? cy + t * ey : t * sy;
        const d2 = (px - mx) * (px - mx) + (py - my) * (py - my);
        if (d2 < best) {
          best = d2;
          // p on the segment, q on the line, as lon/lat.
          const s = onEdge ? (k === 0 ? 0 : 1) : t;
          pLat = fromLat + s * (toLat - fromLat);
          pLon = aLon + s * (bLon - aLon);
          const u = onEdge ? t : k === 2 ? 0 : 1;
          qLat = cLat + u * (dLat - cLat);
          qLon = cLon + u * (dLon - cLon);
        }
      }
    }
    return haversineM(pLat, pLon, qLat, qLon) <= reach;
  }
}
