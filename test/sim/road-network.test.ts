import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { distanceKm, type Point } from '../../src/domain/geo.js';
import { saoPauloRoads } from '../../src/sim/road-network.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';

const START = Date.UTC(2026, 10, 18, 0, 0, 0);
const roads = (createRequire(import.meta.url)('@telematics/map-data/sao-paulo-main-roads.json') as {
  features: { properties: { name: string }; geometry: { coordinates: [number, number][] } }[];
}).features;

/** Metres from `p` to the nearest road line (flat approximation: segments are a few km long). */
function metresOffRoad(p: Point): number {
  const kmPerLon = 111.32 * Math.cos((p.lat * Math.PI) / 180);
  let best = Infinity;
  for (const road of roads) {
    const xy = road.geometry.coordinates.map(([lon, lat]) => [(lon - p.lon) * kmPerLon, (lat - p.lat) * 110.57] as const);
    for (let i = 1; i < xy.length; i += 1) {
      const [[ax, ay], [bx, by]] = [xy[i - 1]!, xy[i]!];
      const len2 = (bx - ax) ** 2 + (by - ay) ** 2;
      const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * (bx - ax) + ay * (by - ay)) / len2));
      best = Math.min(best, Math.hypot(ax + t * (bx - ax), ay + t * (by - ay)) * 1000);
    }
  }
  return best;
}

describe('the simulated fleet on São Paulo\'s main roads', () => {
  it('when the road lines are read, then they form one connected network', () => {
    const network = saoPauloRoads();
    expect(network.nodes.length).toBeGreaterThan(50);
    const far = network.nodes.length - 1;
    expect(network.route(network.nodes[0]!, far).length).toBeGreaterThan(3);
  });

  it.each([1, 2, 3, 4])('when vehicle %i drives for a day, then every position is on a road and it uses more than one road', (seed) => {
    const v = new SimulatedVehicle({ vin: `9BWZZZ377VT10000${seed}`, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, seed);
    let worst = 0;
    let moving = 0;
    const headings = new Set<number>();
    for (let t = START; t < START + 24 * 3_600_000; t += 10_000) {
      v.step(t, 10);
      worst = Math.max(worst, metresOffRoad(v.position));
      if (v.speedKmh > 0) {
        moving += 1;
        headings.add(Math.round(v.heading / 45) % 8);
      }
    }
    expect(worst).toBeLessThan(25);
    expect(moving).toBeGreaterThan(100);
    expect(headings.size).toBeGreaterThan(3);
  });

  it('when a vehicle resumes off the roads, then it drives to the nearest junction first and stays on roads after', () => {
    const resume = { position: { lat: -23.6, lon: -46.6 }, odometerKm: 1000, energyPct: 80 };
    const v = new SimulatedVehicle({ vin: '9BWZZZ377VT100009', powertrain: 'combustion', profile: 'moving', tankLiters: 50, resume }, 9);
    const entry = saoPauloRoads().nodes[saoPauloRoads().nearest(resume.position)]!;
    let reached = false;
    for (let t = START; t < START + 6 * 3_600_000; t += 10_000) {
      v.step(t, 10);
      reached ||= distanceKm(v.position, entry) < 0.001;
      if (reached) expect(metresOffRoad(v.position)).toBeLessThan(25);
    }
    expect(reached).toBe(true);
  });
});
