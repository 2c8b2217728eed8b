/** A company's fences as a FenceSet, found through the spatial index (fence-index.ts). Pure: no I/O. */
import { FenceIndex } from './fence-index.js';
import type { FenceSet, WatchedFence } from './fence-set.js';

export function indexedFenceSet(fences: readonly WatchedFence[]): FenceSet {
  const index = FenceIndex.build(fences);
  const byId = new Map(fences.map((f) => [f.id, f]));
  const found: number[] = [];
  return {
    size: fences.length,
    get: (id) => byId.get(id),
    near(fromLat, fromLon, toLat, toLon, marginM, out) {
      if (fromLat === toLat && fromLon === toLon) index.candidates(toLat, toLon, marginM, found);
      else index.segmentCandidates(fromLat, fromLon, toLat, toLon, marginM, found);
      for (const i of found) out.push(fences[i]!);
    },
  };
}
