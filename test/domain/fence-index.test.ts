/** The per-company spatial index over compiled fences (domain/geofences/fence-index.ts), against a brute-force filter. */
import { describe, expect, it } from 'vitest';
import { compileFence } from '../../src/domain/geofences/compile-fence.js';
import { FenceIndex, marginDegrees, type IndexedFence } from '../../src/domain/geofences/fence-index.js';
import type { Bounds, LonLat } from '../../src/domain/geofences/fence-shape.js';
import { distanceKm, moveKm } from '../../src/domain/geo.js';
import { offset, randomFence, seeded } from '../support/random-fences.js';

/** Whether longitude ranges [a0, a1] and [b0, b1] meet, either of them possibly written across ±180 (min > max). */
function lonRangesMeet(a0: number, a1: number, b0: number, b1: number): boolean {
  const a = a0 <= a1 ? [a0, a1] : [a0, a1 + 360];
  const b = b0 <= b1 ? [b0, b1] : [b0, b1 + 360];
  return [-360, 0, 360].some((k) => a[0]! <= b[1]! + k && b[0]! + k <= a[1]!);
}

/** The brute-force answer: every fence whose bounds meet the box, in order. */
function bruteForce(fences: readonly IndexedFence[], minLon: number, minLat: number, maxLon: number, maxLat: number): number[] {
  const full = maxLon - minLon >= 360;
  return fences.flatMap(({ fence }, i) => {
    const [f0, fLat0, f1, fLat1]: Bounds = fence.bounds;
    const lat = fLat0 <= maxLat && minLat <= fLat1;
    return lat && (full || lonRangesMeet(f0, f1, minLon, maxLon)) ? [i] : [];
  });
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

function fencesAround(seed: number, at: LonLat, count: number, spreadM: number): IndexedFence[] {
  const random = seeded(seed);
  return Array.from({ length: count }, (_, i) => ({ id: `f${i}`, fence: compileFence(randomFence(random, at, spreadM, { minM: 20, maxM: 3000, positions: 10 })) }));
}

const PLACES: Record<string, LonLat> = {
  'São Paulo': [-46.63, -23.55],
  'the antimeridian at Fiji': [179.98, -17],
  'Tromsø, 69.6° N': [18.95, 69.65],
};

describe('FenceIndex', () => {
  for (const [name, place] of Object.entries(PLACES)) {
    it(`when random positions are asked against 2,000 random fences around ${name}, then the candidates are the brute-force filter's, and hold every fence within the margin`, () => {
      const fences = fencesAround(name.length, place, 2000, 30_000);
      const index = FenceIndex.build(fences);
      const random = seeded(name.length + 1);
      const out: number[] = [];
      let near = 0;
      let listed = 0;
      for (let n = 0; n < 600; n += 1) {
        const [lon, lat] = offset(place, (random() - 0.5) * 70_000, (random() - 0.5) * 70_000);
        const position = lon > 180 ? lon - 360 : lon;
        const marginM = random() < 0.2 ? 0 : random() * 1500;
        const { dLat, dLon } = marginDegrees(lat, marginM);
        index.candidates(lat, position, marginM, out);
        const expected = bruteForce(fences, position - dLon, lat - dLat, position + dLon, lat + dLat);
        expect(sorted(out)).toEqual(expected);
        listed += out.length;
        fences.forEach(({ fence }, i) => {
          if (fence.signedDistanceM(lat, position) <= marginM) {
            near += 1;
            expect(out, `fence ${i} within ${marginM} m of ${lat}, ${position}`).toContain(i);
          }
        });
      }
      expect(near).toBeGreaterThan(200);
      expect(listed).toBeLessThan(600 * 2000 * 0.05);
    });

    it(`when random segments are asked around ${name}, then the candidates are the brute-force filter's, and hold every fence a segment enters`, () => {
      const fences = fencesAround(name.length + 2, place, 1000, 30_000);
      const index = FenceIndex.build(fences);
      const random = seeded(name.length + 3);
      const out: number[] = [];
      let entered = 0;
      for (let n = 0; n < 300; n += 1) {
        const [lon1, lat1] = offset(place, (random() - 0.5) * 70_000, (random() - 0.5) * 70_000);
        const [lon2, lat2] = offset([lon1, lat1], (random() - 0.5) * 6000, (random() - 0.5) * 6000);
        const [a, b] = [lon1 > 180 ? lon1 - 360 : lon1, lon2 > 180 ? lon2 - 360 : lon2];
        const marginM = random() * 200;
        index.segmentCandidates(lat1, a, lat2, b, marginM, out);
        const { dLat, dLon } = marginDegrees(Math.max(Math.abs(lat1), Math.abs(lat2)), marginM);
        const [west, east] = [Math.min(lon1, lon2), Math.max(lon1, lon2)];
        expect(sorted(out)).toEqual(bruteForce(fences, west - dLon, Math.min(lat1, lat2) - dLat, east + dLon, Math.max(lat1, lat2) + dLat));
        fences.forEach(({ fence }, i) => {
          if (fence.signedDistanceM(lat1, a) > 0 && fence.signedDistanceM(lat2, b) > 0 && fence.segmentEntersM(lat1, a, lat2, b, 0)) {
            entered += 1;
            expect(out).toContain(i);
          }
        });
      }
      expect(entered).toBeGreaterThan(20);
    });
  }

  it('when ids are asked for, then they are the fences\' ids, each once even where a fence straddling ±180° meets a box straddling it', () => {
    const fiji: LonLat = [179.999, -17];
    const fences = [
      { id: 'across', fence: compileFence({ kind: 'circle', center: fiji, radiusM: 2000 }) },
      { id: 'west', fence: compileFence({ kind: 'circle', center: [-179.99, -17], radiusM: 100 }) },
      { id: 'far', fence: compileFence({ kind: 'circle', center: [170, -17], radiusM: 100 }) },
    ];
    const index = FenceIndex.build(fences);
    const ids: string[] = ['stale'];
    expect(index.candidateIds(-17, 180, 5000, ids)).toBe(2);
    expect(ids.sort()).toEqual(['across', 'west']);
    expect(index.candidateIds(-17, -179.9999, 10, ids)).toBe(1);
    expect(ids).toEqual(['across']);
    expect(index.segmentCandidateIds(-17, 179.9, -17, -179.9, 0, ids)).toBe(2);
    const positions: number[] = [];
    expect(index.candidates(-17, 170.0001, 0, positions)).toBe(1);
    expect(positions).toEqual([2]);
  });

  it('when there are no fences, then nothing is a candidate; when the margin reaches a pole, then every longitude is searched', () => {
    const out: number[] = [7];
    expect(FenceIndex.build([]).candidates(0, 0, 100, out)).toBe(0);
    expect(out).toEqual([]);
    const polar = FenceIndex.build([{ id: 'p', fence: compileFence({ kind: 'circle', center: [100, 89.99], radiusM: 500 }) }]);
    expect(polar.candidates(89.995, -80, 2000, out)).toBe(1);
  });

  it('when a position is a margin east of a fence\'s bounds by haversine, then the widening in degrees still reaches it', () => {
    for (const lat of [-23.55, 0, 45, 69.6, -80]) {
      for (const marginM of [10, 300, 5000]) {
        const { dLat, dLon } = marginDegrees(lat, marginM);
        const east = moveKm({ lat, lon: 10 }, 90, marginM / 1000);
        const north = moveKm({ lat, lon: 10 }, 0, marginM / 1000);
        expect(east.lon - 10).toBeLessThanOrEqual(dLon * (1 + 1e-9));
        expect(north.lat - lat).toBeLessThanOrEqual(dLat * (1 + 1e-9));
        expect(distanceKm({ lat, lon: 10 }, { lat, lon: 10 + dLon }) * 1000).toBeGreaterThanOrEqual(marginM * 0.999);
      }
    }
  });
});
