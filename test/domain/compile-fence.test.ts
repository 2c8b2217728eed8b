/** The compiled fence's measures (domain/geofences/compile-fence.ts) at known points, against haversine, and its crossings. */
import { describe, expect, it } from 'vitest';
import { compileFence, CROSSING_TOLERANCE_M } from '../../src/domain/geofences/compile-fence.js';
import type { FenceShape, LonLat } from '../../src/domain/geofences/fence-shape.js';
import { distanceKm } from '../../src/domain/geo.js';
import { offset, randomFence, ring, seeded, square } from '../support/random-fences.js';

const SAO_PAULO: LonLat = [-46.63, -23.55];
const at = (east: number, north: number, from: LonLat = SAO_PAULO) => offset(from, east, north);
/** Signed distance at the position `east`, `north` metres from São Paulo. */
const sd = (shape: FenceShape, east: number, north: number) => {
  const [lon, lat] = at(east, north);
  return compileFence(shape).signedDistanceM(lat, lon);
};
/** Whether the segment between two offsets from São Paulo enters `depth` metres deep. */
const enters = (shape: FenceShape, from: readonly [number, number], to: readonly [number, number], depth: number) => {
  const [aLon, aLat] = at(...from);
  const [bLon, bLat] = at(...to);
  return compileFence(shape).segmentEntersM(aLat, aLon, bLat, bLon, depth);
};

const circle: FenceShape = { kind: 'circle', center: SAO_PAULO, radiusM: 100 };
const squareFence: FenceShape = { kind: 'polygon', rings: [square(SAO_PAULO, 100)] };
const holed: FenceShape = { kind: 'polygon', rings: [square(SAO_PAULO, 200), square(SAO_PAULO, 50).reverse()] };
/** 1 km north from São Paulo, then 1 km east; 100 m wide. */
const corridor: FenceShape = { kind: 'corridor', line: [at(0, 0), at(0, 1000), at(1000, 1000)], widthM: 100 };

describe('compileFence: signed distances at known points', () => {
  it('when a position is inside a circle, then it is negative by the haversine distance to the rim; outside, positive', () => {
    expect(sd(circle, 0, 0)).toBeCloseTo(-100, 6);
    expect(sd(circle, 0, 300)).toBeCloseTo(200, 1);
    expect(sd(circle, -60, 0)).toBeCloseTo(-40, 1);
    const [lon, lat] = at(250, -250);
    expect(compileFence(circle).signedDistanceM(lat, lon)).toBeCloseTo(distanceKm({ lat, lon }, { lat: SAO_PAULO[1], lon: SAO_PAULO[0] }) * 1000 - 100, 9);
    expect(compileFence(circle).innerCapM).toBe(50);
  });

  it('when a position is inside a polygon, then it is negative by its distance to the nearest edge; beyond a corner, the distance to the corner', () => {
    expect(sd(squareFence, 0, 0)).toBeCloseTo(-100, 1);
    expect(sd(squareFence, 70, 10)).toBeCloseTo(-30, 1);
    expect(sd(squareFence, 0, -160)).toBeCloseTo(60, 1);
    expect(sd(squareFence, 130, 140)).toBeCloseTo(Math.hypot(30, 40), 1);
    expect(Math.abs(sd(squareFence, 100, 20))).toBeLessThan(0.01);
  });

  it('when a polygon has a hole, then the hole is outside: positive there, negative between the hole and the outer ring', () => {
    expect(sd(holed, 0, 0)).toBeCloseTo(50, 1);
    expect(sd(holed, 20, 0)).toBeCloseTo(30, 1);
    expect(sd(holed, 150, 0)).toBeCloseTo(-50, 1);
    expect(sd(holed, 80, 0)).toBeCloseTo(-30, 1);
    expect(sd(holed, 260, 0)).toBeCloseTo(60, 1);
    // Equivalent radius of 400² − 100² m², halved.
    expect(compileFence(holed).innerCapM).toBeCloseTo(Math.sqrt((400 ** 2 - 100 ** 2) / Math.PI) / 2, 0);
    expect(compileFence(squareFence).innerCapM).toBeCloseTo(Math.sqrt(200 ** 2 / Math.PI) / 2, 0);
  });

  it('when a position is near a corridor, then it is its distance to the line less half the width, round at both ends', () => {
    expect(sd(corridor, 0, 500)).toBeCloseTo(-50, 1);
    expect(sd(corridor, 30, 500)).toBeCloseTo(-20, 1);
    expect(sd(corridor, -80, 500)).toBeCloseTo(30, 1);
    expect(sd(corridor, 0, -100)).toBeCloseTo(50, 1);
    expect(sd(corridor, -30, -40)).toBeCloseTo(0, 1);
    expect(sd(corridor, 1060, 1000)).toBeCloseTo(10, 1);
    expect(sd(corridor, 1000 + 60, 1000 + 80)).toBeCloseTo(50, 1);
    expect(sd(corridor, 500, 960)).toBeCloseTo(-10, 1);
    expect(compileFence(corridor).innerCapM).toBe(25);
  });

  it('when a fence is compiled, then its bounds hold it and a ring\'s bounds are its positions\'', () => {
    const [minLon, minLat, maxLon, maxLat] = compileFence(squareFence).bounds;
    const [sw, ne] = [at(-100, -100), at(100, 100)];
    expect([minLon, minLat, maxLon, maxLat]).toEqual([sw[0], sw[1], ne[0], ne[1]]);
    const c = compileFence(circle).bounds;
    expect(c[1]).toBeCloseTo(at(0, -100)[1], 9);
    expect(c[2]).toBeGreaterThanOrEqual(at(100, 0)[0]);
    expect(c[2]).toBeLessThan(at(100.5, 0)[0]);
    const k = compileFence(corridor).bounds;
    expect(k[0]).toBeLessThanOrEqual(at(-50, 0)[0]);
    expect(k[3]).toBeGreaterThanOrEqual(at(0, 1050)[1]);
  });
});

describe('compileFence: fences across the antimeridian (every edge the short way round)', () => {
  const fiji: LonLat = [179.999, -17];
  const squareAcross: FenceShape = { kind: 'polygon', rings: [square(fiji, 500)] };

  it('when a square straddles ±180°, then positions on either side measure inside and its bounds are written minLon > maxLon', () => {
    const fence = compileFence(squareAcross);
    const [east, north] = [300, 0];
    const [lonE, latE] = at(east, north, fiji);
    expect(lonE).toBeGreaterThan(180);
    expect(fence.signedDistanceM(latE, lonE - 360)).toBeCloseTo(-200, 1);
    const [lonW, latW] = at(-300, 0, fiji);
    expect(fence.signedDistanceM(latW, lonW)).toBeCloseTo(-200, 1);
    expect(fence.signedDistanceM(latW, lonW + 360)).toBeCloseTo(-200, 1);
    const [lonFar, latFar] = at(700, 0, fiji);
    expect(fence.signedDistanceM(latFar, lonFar - 360)).toBeCloseTo(200, 1);
    const [minLon, , maxLon] = fence.bounds;
    expect(minLon).toBeGreaterThan(maxLon);
    expect(minLon).toBeCloseTo(at(-500, 0, fiji)[0], 9);
    expect(maxLon).toBeCloseTo(at(500, 0, fiji)[0] - 360, 9);
  });

  it('when a circle or a corridor straddles ±180°, then they measure across it, and a segment across it crosses them', () => {
    const c = compileFence({ kind: 'circle', center: fiji, radiusM: 400 });
    const [lon, lat] = at(300, 0, fiji);
    expect(c.signedDistanceM(lat, lon - 360)).toBeCloseTo(-100, 1);
    expect(c.bounds[0]).toBeGreaterThan(c.bounds[2]);
    const [wLon, wLat] = at(-2000, 0, fiji);
    const [eLon, eLat] = at(2000, 0, fiji);
    expect(c.segmentEntersM(wLat, wLon, eLat, eLon - 360, 30)).toBe(true);
    const k = compileFence({ kind: 'corridor', line: [at(-1000, 0, fiji), at(1000, 0, fiji)].map(([x, y]) => [x > 180 ? x - 360 : x, y] as const), widthM: 100 });
    expect(k.signedDistanceM(lat, lon - 360)).toBeCloseTo(-50, 1);
    const [nLon, nLat] = at(300, 500, fiji);
    const [sLon, sLat] = at(300, -500, fiji);
    expect(k.segmentEntersM(nLat, nLon - 360, sLat, sLon - 360, 30)).toBe(true);
    expect(compileFence(squareAcross).segmentEntersM(wLat, wLon, eLat, eLon - 360, 30)).toBe(true);
  });
});

describe('compileFence: agreement with haversine (geo.ts distanceKm)', () => {
  /** The least haversine distance to a dense sampling of the lon/lat-straight edges. */
  function sampledDistanceM(lat: number, lon: number, paths: readonly (readonly LonLat[])[]): number {
    let best = Infinity;
    for (const path of paths) {
      for (let i = 0; i + 1 < path.length; i += 1) {
        const [[x1, y1], [x2, y2]] = [path[i]!, path[i + 1]!];
        for (let k = 0; k <= 4000; k += 1) {
          const t = k / 4000;
          best = Math.min(best, distanceKm({ lat, lon }, { lat: y1 + t * (y2 - y1), lon: x1 + t * (x2 - x1) }) * 1000);
        }
      }
    }
    return best;
  }

  for (const latitude of [-23.55, 0, 45, -60]) {
    it(`when positions lie 0.5 to 50 km from a 50-km polygon and corridor at latitude ${latitude}, then distances agree within 0.5 % (measured: under 0.01 %)`, () => {
      const random = seeded(Math.round(latitude * 100) + 7);
      const center: LonLat = [-46.63, latitude];
      const outer = ring(center, [[-25_000, -20_000], [22_000, -25_000], [25_000, 18_000], [-5_000, 25_000], [-24_000, 10_000]]);
      const polygon = compileFence({ kind: 'polygon', rings: [outer] });
      const line = [at(-25_000, 0, center), at(0, 20_000, center), at(25_000, -15_000, center)];
      const corridorFence = compileFence({ kind: 'corridor', line, widthM: 20 });
      let worst = 0;
      let measured = 0;
      for (let n = 0; n < 40; n += 1) {
        const [lon, lat] = at((random() - 0.5) * 150_000, (random() - 0.5) * 150_000, center);
        const truthPolygon = sampledDistanceM(lat, lon, [outer]);
        const truthLine = sampledDistanceM(lat, lon, [line]) - 10;
        if (truthPolygon > 500 && truthPolygon < 50_000) {
          const got = Math.abs(polygon.signedDistanceM(lat, lon));
          measured += 1;
          worst = Math.max(worst, Math.abs(got - truthPolygon) / truthPolygon);
        }
        if (truthLine > 500 && truthLine < 50_000) {
          const got = corridorFence.signedDistanceM(lat, lon);
          measured += 1;
          worst = Math.max(worst, Math.abs(got - truthLine) / truthLine);
        }
      }
      expect(measured).toBeGreaterThan(30);
      expect(worst).toBeLessThan(0.005);
      expect(worst).toBeLessThan(0.0001);
    });
  }
});

describe('compileFence: a segment between two positions outside (segmentEntersM)', () => {
  /** 200 m across: a circle, a square, and a corridor running north–south through São Paulo. */
  const across200: Record<string, FenceShape> = {
    circle,
    polygon: squareFence,
    corridor: { kind: 'corridor', line: [at(0, -500), at(0, 500)], widthM: 200 },
  };

  for (const [kind, shape] of Object.entries(across200)) {
    it(`when a 2 km segment runs through a ${kind} 200 m across, then it enters 30 m deep`, () => {
      expect(enters(shape, [-1000, 0], [1000, 0], 30)).toBe(true);
      expect(enters(shape, [1000, 40], [-1000, -40], 30)).toBe(true);
    });

    it(`when a 2 km segment passes 100 m beside a ${kind}, then it does not enter`, () => {
      const beside = kind === 'corridor' ? 700 : 200;
      expect(enters(shape, [-1000, beside], [1000, beside], 30)).toBe(false);
      expect(enters(shape, [-1000, beside], [1000, beside], 0)).toBe(false);
    });

    it(`when a segment grazes a ${kind}, reaching 20 m inside, then it enters 10 m deep but not 30 m (the margin)`, () => {
      const grazing = kind === 'corridor' ? 500 + 80 : 80;
      expect(enters(shape, [-1000, grazing], [1000, grazing], 30)).toBe(false);
      expect(enters(shape, [-1000, grazing], [1000, grazing], 10)).toBe(true);
    });
  }

  it('when a segment cuts a polygon\'s corner 15 m deep, or runs through a hole, then only the depth reached counts', () => {
    expect(enters(squareFence, [70 - 500, 100 + 500], [100 + 500, 70 - 500], 10)).toBe(true);
    expect(enters(squareFence, [70 - 500, 100 + 500], [100 + 500, 70 - 500], 20)).toBe(false);
    // Across the holed square: the ring between the hole (50 m) and the outer edge (200 m) is 75 m deep at most.
    expect(enters(holed, [-1000, 0], [1000, 0], 70)).toBe(true);
    expect(enters(holed, [-1000, 0], [1000, 0], 80)).toBe(false);
    expect(enters(holed, [-30, -30], [30, 30], 0)).toBe(false);
  });

  it('when the depth asked exceeds what the fence has, then no segment enters it', () => {
    expect(enters(circle, [-1000, 0], [1000, 0], 101)).toBe(false);
    expect(enters(squareFence, [-1000, 0], [1000, 0], 101)).toBe(false);
    expect(enters(across200.corridor!, [-1000, 0], [1000, 0], 101)).toBe(false);
  });

  it('when random segments cross random fences, then the answer is the depth a dense sampling of the segment reaches', () => {
    const random = seeded(59);
    let entered = 0;
    let notEntered = 0;
    for (let n = 0; n < 300; n += 1) {
      const shape = randomFence(random, SAO_PAULO, 300, { minM: 50, maxM: 400, positions: 12 });
      const fence = compileFence(shape);
      const [aLon, aLat] = at((random() - 0.5) * 3000, (random() - 0.5) * 3000);
      const [bLon, bLat] = at((random() - 0.5) * 3000, (random() - 0.5) * 3000);
      if (fence.signedDistanceM(aLat, aLon) <= 0 || fence.signedDistanceM(bLat, bLon) <= 0) continue;
      const depth = 5 + random() * 60;
      let deepest = -Infinity;
      const samples = 20_000;
      for (let k = 0; k <= samples; k += 1) {
        const t = k / samples;
        deepest = Math.max(deepest, -fence.signedDistanceM(aLat + t * (bLat - aLat), aLon + t * (bLon - aLon)));
      }
      // 3 km over 20,000 samples: 0.15 m apart, so the deepest sample is within 0.08 m of the deepest point.
      const answer = fence.segmentEntersM(aLat, aLon, bLat, bLon, depth);
      if (deepest >= depth + CROSSING_TOLERANCE_M) {
        expect(answer, `${JSON.stringify(shape)}: deepest ${deepest} vs ${depth}`).toBe(true);
        entered += 1;
      } else if (deepest < depth - 0.1) {
        expect(answer, `${JSON.stringify(shape)}: deepest ${deepest} vs ${depth}`).toBe(false);
        if (deepest > 0) notEntered += 1;
      }
    }
    expect(entered).toBeGreaterThan(20);
    expect(notEntered).toBeGreaterThan(5);
  });
});
