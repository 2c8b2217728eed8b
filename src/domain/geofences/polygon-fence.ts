/**
 * A polygon fence compiled (compile-fence.ts): the distance to the nearest edge of any ring,
 * negative inside the outer ring and outside every hole.
 */
import type { Bounds, CompiledFence, FenceShape } from './fence-shape.js';
import { boundsOf, LonLatPaths, lonBeside, METRES_PER_DEGREE, RAD, segmentsMeet } from './fence-geometry.js';

type Polygon = Extract<FenceShape, { kind: 'polygon' }>;

/**
 * A crossing whose deepest point is within this of the depth asked may be missed (answered
 * false): a quarter metre is far below GNSS error (5–50 m) and bounds the search below.
 */
export const CROSSING_TOLERANCE_M = 0.25;
/** Depth evaluations one crossing question may spend; only near-ties along a long run get here. */
const MAX_EVALUATIONS = 2048;
/** Intervals the depth-first search keeps; its depth grows by one per halving (~40 for 10⁴ km at 0.25 m). */
const STACK_INTERVALS = 64;

export class PolygonFence implements CompiledFence {
  readonly bounds: Bounds;
  readonly innerCapM: number;
  private readonly rings: LonLatPaths;
  private readonly stack = new Float64Array(STACK_INTERVALS * 2);
  private firstMeet = 0;
  private lastMeet = 1;

  constructor(readonly shape: Polygon) {
    this.rings = new LonLatPaths(shape.rings, shape.rings[0]?.[0]?.[0] ?? 0);
    const [minLon, minLat, maxLon, maxLat] = this.rings.box();
    this.bounds = boundsOf(minLon, minLat, maxLon, maxLat);
    const area = Math.max(0, this.ringArea(0) - this.holesArea());
    this.innerCapM = Math.sqrt(area / Math.PI) / 2;
  }

  signedDistanceM(lat: number, lon: number): number {
    const near = lonBeside(lon, this.rings.refLon);
    const d = this.rings.nearestM(lat, near);
    return this.rings.holds(lat, near) ? -d : d;
  }

  /**
   * A segment both of whose ends are outside and that meets no edge never enters (it lies
   * outside, or within a hole). Otherwise its depth inside, −signedDistanceM along it, is searched
   * between its first and last meeting with an edge for a point at least `depthM` deep: a signed
   * distance changes by at most one metre per metre moved, so an interval whose middle lies d
   * deep holds no point deeper than d plus half its length, and is dropped when that is short of
   * `depthM` (Piyavskii's bound for a Lipschitz function). Exact but for the tolerance above.
   */
  segmentEntersM(fromLat: number, fromLon: number, toLat: number, toLon: number, depthM: number): boolean {
    const aLon = lonBeside(fromLon, this.rings.refLon);
    const bLon = lonBeside(toLon, aLon);
    if (!this.meetEdges(fromLat, aLon, toLat, bLon)) return false;
    if (depthM <= 0) return true;
    const dLon = bLon - aLon;
    const dLat = toLat - fromLat;
    // Metres per unit of the parameter, at most: longitude spans most where nearest the equator.
    const equatorward = fromLat > 0 === toLat > 0 ? Math.min(Math.abs(fromLat), Math.abs(toLat)) : 0;
    const speed = Math.hypot(dLon * Math.cos(equatorward * RAD), dLat) * METRES_PER_DEGREE * 1.001;
    const stack = this.stack;
    // Before its first meeting with an edge and after its last the segment is outside.
    stack[0] = this.firstMeet;
    stack[1] = this.lastMeet;
    let top = 2;
    let evaluations = 0;
    while (top > 0) {
      const t1 = stack[--top]!;
      const t0 = stack[--top]!;
      const tm = (t0 + t1) / 2;
      const depth = -this.signedDistanceM(fromLat + tm * dLat, aLon + tm * dLon);
      if (depth >= depthM) return true;
      const slack = ((t1 - t0) / 2) * speed;
      evaluations += 1;
      if (depth + slack < depthM || slack < CROSSING_TOLERANCE_M || evaluations >= MAX_EVALUATIONS || top + 4 > stack.length) continue;
      stack[top++] = tm;
      stack[top++] = t1;
      stack[top++] = t0;
      stack[top++] = tm;
    }
    return false;
  }

  /**
   * Whether the segment meets any edge; if so, where along it (0..1) it first and last does, left
   * in firstMeet and lastMeet.
   */
  private meetEdges(aLat: number, aLon: number, bLat: number, bLon: number): boolean {
    const c = this.rings.coords;
    const ends = this.rings.ends;
    const sx = bLon - aLon, sy = bLat - aLat;
    let first = Infinity;
    let last = -Infinity;
    let start = 0;
    for (let p = 0; p < ends.length; p += 1) {
      const end = ends[p]!;
      for (let i = start; i < end - 1; i += 1) {
        const cx = c[i * 2]!, cy = c[i * 2 + 1]!, dx = c[i * 2 + 2]!, dy = c[i * 2 + 3]!;
        if (!segmentsMeet(aLon, aLat, bLon, bLat, cx, cy, dx, dy)) continue;
        const ex = dx - cx, ey = dy - cy;
        const denominator = sx * ey - sy * ex;
        if (denominator !== 0) {
          const t = ((cx - aLon) * ey - (cy - aLat) * ex) / denominator;
          first = Math.min(first, t);
          last = Math.max(last, t);
        } else {
          // Along the edge: the stretch they share.
          const len2 = sx * sx + sy * sy;
          const tc = len2 === 0 ? 0 : ((cx - aLon) * sx + (cy - aLat) * sy) / len2;
          const td = len2 === 0 ? 0 : ((dx - aLon) * sx + (dy - aLat) * sy) / len2;
          first = Math.min(first, tc, td);
          last = Math.max(last, tc, td);
        }
      }
      start = end;
    }
    this.firstMeet = Math.max(0, first);
    this.lastMeet = Math.min(1, last);
    return first <= last;
  }

  /** Square metres inside ring `p` (shoelace in the flat metric at the fence's middle latitude). */
  private ringArea(p: number): number {
    const c = this.rings.coords;
    const start = p === 0 ? 0 : this.rings.ends[p - 1]!;
    const end = this.rings.ends[p] ?? start;
    const [, minLat, , maxLat] = this.rings.box();
    const kx = Math.cos(((minLat + maxLat) / 2) * RAD) * METRES_PER_DEGREE;
    const x0 = c[start * 2] ?? 0, y0 = c[start * 2 + 1] ?? 0;
    const x = (i: number) => (c[i * 2]! - x0) * kx;
    const y = (i: number) => (c[i * 2 + 1]! - y0) * METRES_PER_DEGREE;
    let twice = 0;
    for (let i = start, j = end - 1; i < end; j = i, i += 1) twice += x(j) * y(i) - x(i) * y(j);
    return Math.abs(twice) / 2;
  }

  private holesArea(): number {
    let sum = 0;
    for (let p = 1; p < this.rings.ends.length; p += 1) sum += this.ringArea(p);
    return sum;
  }
}
