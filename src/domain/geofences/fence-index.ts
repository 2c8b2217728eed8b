/**
 * A company's compiled fences behind a static packed R-tree (flatbush), so that the fences a
 * position may be near are found in O(log n + candidates): a position against 10,000 fences costs
 * about what it costs against ten. Built once from the company's fences and built again when they
 * change (flatbush cannot change in place): indexing 10,000 compiled fences took 2–20 ms on
 * a shared 2-core machine, and fences that did not change need not be compiled again.
 *
 * A fence across the antimeridian (bounds minLon > maxLon) is indexed as two boxes, and a query
 * box across it is searched as two; a fence met twice is listed once. flatbush is pure
 * computation over numbers, as the domain's rule asks.
 */
import Flatbush from 'flatbush';
import type { CompiledFence } from './fence-shape.js';
import { lonBeside, lonDegreesWithin, METRES_PER_DEGREE } from './fence-geometry.js';

export interface IndexedFence {
  readonly id: string;
  readonly fence: CompiledFence;
}

/**
 * The box `marginM` around a position, degrees: latitude ± marginM, longitude ± the span marginM
 * has anywhere in that band (fence-geometry.ts lonDegreesWithin), so the widening is never short.
 */
export function marginDegrees(lat: number, marginM: number): { readonly dLat: number; readonly dLon: number } {
  return { dLat: marginM / METRES_PER_DEGREE, dLon: lonDegreesWithin(marginM, lat) };
}

/** Held between queries instead of the caller's array, which the index must not keep alive. */
const NO_RESULTS: (number | string)[] = [];

export class FenceIndex {
  /** The fences as given to build; candidates are their positions in this list. */
  readonly fences: readonly IndexedFence[];
  private readonly tree: Flatbush | undefined;
  /** Which fence each indexed box is of. */
  private readonly fenceOfBox: Int32Array;
  /** The query a fence was last listed in, so one met by two boxes is listed once. */
  private readonly listedIn: Uint32Array;
  private query = 0;
  private out: (number | string)[] = NO_RESULTS;
  private asIds = false;
  private readonly collect = (box: number): boolean => {
    const f = this.fenceOfBox[box]!;
    if (this.listedIn[f] !== this.query) {
      this.listedIn[f] = this.query;
      this.out.push(this.asIds ? this.fences[f]!.id : f);
    }
    // Nothing goes into flatbush's own result array: the caller's array is the result.
    return false;
  };

  private constructor(fences: readonly IndexedFence[]) {
    this.fences = fences;
    this.listedIn = new Uint32Array(fences.length);
    const across = fences.filter(({ fence }) => fence.bounds[0] > fence.bounds[2]).length;
    this.fenceOfBox = new Int32Array(fences.length + across);
    if (fences.length === 0) {
      this.tree = undefined;
      return;
    }
    const tree = new Flatbush(fences.length + across);
    fences.forEach(({ fence }, f) => {
      const [minLon, minLat, maxLon, maxLat] = fence.bounds;
      if (minLon <= maxLon) {
        this.fenceOfBox[tree.add(minLon, minLat, maxLon, maxLat)] = f;
      } else {
        this.fenceOfBox[tree.add(minLon, minLat, 180, maxLat)] = f;
        this.fenceOfBox[tree.add(-180, minLat, maxLon, maxLat)] = f;
      }
    });
    tree.finish();
    this.tree = tree;
  }

  static build(fences: readonly IndexedFence[]): FenceIndex {
    return new FenceIndex(fences);
  }

  get size(): number {
    return this.fences.length;
  }

  /**
   * The fences whose bounds, widened by `marginM`, hold the position, written into `out` (emptied
   * first) as their positions in `fences`; returns how many. Every fence with a signed distance
   * ≤ marginM at the position is among them.
   */
  candidates(lat: number, lon: number, marginM: number, out: number[]): number {
    return this.near(lat, lon, marginM, out, false);
  }

  /** candidates, as the fences' ids. */
  candidateIds(lat: number, lon: number, marginM: number, out: string[]): number {
    return this.near(lat, lon, marginM, out, true);
  }

  /**
   * The fences whose bounds, widened by `marginM`, meet the box of the segment between two
   * positions (taken the short way round in longitude): every fence the segment may pass within
   * marginM of. Written into `out` as for candidates.
   */
  segmentCandidates(lat1: number, lon1: number, lat2: number, lon2: number, marginM: number, out: number[]): number {
    return this.along(lat1, lon1, lat2, lon2, marginM, out, false);
  }

  /** segmentCandidates, as the fences' ids. */
  segmentCandidateIds(lat1: number, lon1: number, lat2: number, lon2: number, marginM: number, out: string[]): number {
    return this.along(lat1, lon1, lat2, lon2, marginM, out, true);
  }

  private near(lat: number, lon: number, marginM: number, out: (number | string)[], asIds: boolean): number {
    const dLat = marginM / METRES_PER_DEGREE;
    const dLon = lonDegreesWithin(marginM, lat);
    return this.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat, out, asIds);
  }

  private along(lat1: number, lon1: number, lat2: number, lon2: number, marginM: number, out: (number | string)[], asIds: boolean): number {
    const lon2Near = lonBeside(lon2, lon1);
    const dLat = marginM / METRES_PER_DEGREE;
    const dLon = lonDegreesWithin(marginM, Math.max(Math.abs(lat1), Math.abs(lat2)));
    return this.search(Math.min(lon1, lon2Near) - dLon, Math.min(lat1, lat2) - dLat, Math.max(lon1, lon2Near) + dLon, Math.max(lat1, lat2) + dLat, out, asIds);
  }

  /** A box whose longitudes may run past ±180, searched as one box or two. */
  private search(minLon: number, minLat: number, maxLon: number, maxLat: number, out: (number | string)[], asIds: boolean): number {
    out.length = 0;
    const tree = this.tree;
    if (tree === undefined) return 0;
    this.out = out;
    this.asIds = asIds;
    this.query = this.query === 0xffffffff ? this.restartQueries() : this.query + 1;
    if (maxLon - minLon >= 360) {
      tree.search(-180, minLat, 180, maxLat, this.collect);
    } else {
      while (minLon < -180) (minLon += 360), (maxLon += 360);
      while (minLon >= 180) (minLon -= 360), (maxLon -= 360);
      tree.search(minLon, minLat, Math.min(180, maxLon), maxLat, this.collect);
      if (maxLon > 180) tree.search(-180, minLat, maxLon - 360, maxLat, this.collect);
    }
    this.out = NO_RESULTS;
    return out.length;
  }

  private restartQueries(): number {
    this.listedIn.fill(0);
    return 1;
  }
}
