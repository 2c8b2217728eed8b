/**
 * A fence shape compiled for the evaluator's questions (fence-shape.ts `CompiledFence`): its
 * positions copied once into a Float64Array, so that a signed distance or a crossing question
 * allocates nothing and costs O(positions).
 *
 * How a distance is measured. Edges are straight in longitude and latitude, as RFC 7946 draws
 * them. The nearest point of the boundary is chosen in a flat metric at the position's own
 * latitude (one cosine a call), and the distance to that point is then measured by haversine
 * (geo.ts's sphere, as every distance in the service). The answer is therefore the great-circle
 * distance to a point of the boundary, never shorter than the true distance; it is longer only by
 * picking a slightly wrong nearest point, a second-order error: the flat metric stretches
 * east–west lengths by at most tan|lat|·d/2R (d the distance, R the Earth's radius), 0.2 % at
 * São Paulo and 50 km, and the distance to the point chosen grows by about the square of that:
 * 0.003 % at most out to 50 km at latitudes to 60° (tested against haversine over a dense sampling
 * of the boundary, within 0.01 %). A plain equirectangular projection at the fence's middle
 * latitude would keep the first-order error itself, over 0.5 % at 60° and 50 km. The sphere is
 * not the WGS 84 ellipsoid, which differs by up to 0.5 %, as for every distance the service
 * reports. Crossings pick the closest points the same way (circle-fence.ts, corridor-fence.ts).
 *
 * What is supported: fences anywhere but within their own size of a pole (the flat metric has no
 * east–west scale there; a circle, measured by haversine alone, is exact everywhere). A fence may
 * straddle the antimeridian: every edge is taken the short way round in longitude (a 50-km fence
 * never spans 180°), and its bounds are then written minLon > maxLon, as RFC 7946 §5.2 writes them.
 *
 * Why no library: turf (`@turf/point-to-line-distance`, `@turf/boolean-point-in-polygon`, 7.4.0)
 * takes GeoJSON features, so each call builds a point feature and its helpers allocate per edge:
 * on a 20-position polygon its signed distance (point-to-line distance of the ring, sign from
 * point-in-polygon) cost 127–135 µs a call against 0.4–1.0 µs here, with 723 collections over
 * 100,000 calls against 1, the answers within 0.2 mm (2026-12-02, Node 20, 2 shared cores).
 * robust-point-in-polygon's exact predicates answer only on which side of a boundary a position
 * lies within rounding (~1e-9 m of it), where the signed distance is zero either way.
 */
import { CircleFence } from './circle-fence.js';
import { CorridorFence } from './corridor-fence.js';
import type { CompiledFence, FenceShape } from './fence-shape.js';
import { PolygonFence } from './polygon-fence.js';

export { CROSSING_TOLERANCE_M } from './polygon-fence.js';

/** Compiles a valid shape (the request's checks have run: rings closed, sizes within D13's limits). */
export function compileFence(shape: FenceShape): CompiledFence {
  switch (shape.kind) {
    case 'circle':
      return new CircleFence(shape);
    case 'polygon':
      return new PolygonFence(shape);
    case 'corridor':
      return new CorridorFence(shape);
  }
}
