import { describe, expect, it } from 'vitest';
import { fenceBounds } from '../../src/domain/geofences/fence-bounds.js';
import type { LonLat } from '../../src/domain/geofences/fence-shape.js';
import { parseGeofence, type ParsedGeofence } from '../../src/domain/geofences/parse-geofence.js';
import { polygonStructureProblem, segmentsMeet } from '../../src/domain/geofences/ring-crossings.js';

/** A square around Praça da Sé, São Paulo, counter-clockwise and closed. */
const SQUARE: LonLat[] = [[-46.64, -23.56], [-46.62, -23.56], [-46.62, -23.54], [-46.64, -23.54], [-46.64, -23.56]];
const HOLE: LonLat[] = [[-46.635, -23.555], [-46.635, -23.545], [-46.625, -23.545], [-46.625, -23.555], [-46.635, -23.555]];
const polygon = (...rings: unknown[]) => ({ name: 'Sé', geometry: { type: 'Polygon', coordinates: rings } });
const circle = (extra: Record<string, unknown> = {}) => ({ name: 'Depot', geometry: { type: 'Point', coordinates: [-46.63, -23.55] }, radius_m: 200, ...extra });
const corridor = (extra: Record<string, unknown> = {}) => ({ name: 'Route 1', geometry: { type: 'LineString', coordinates: [[-46.7, -23.5], [-46.6, -23.6]] }, width_m: 100, ...extra });

function parsed(body: unknown): ParsedGeofence {
  const result = parseGeofence(body);
  if (!result.ok) throw new Error(`refused: ${result.problem}`);
  return result.geofence;
}
function problem(body: unknown): string {
  const result = parseGeofence(body);
  if (result.ok) throw new Error('accepted');
  return result.problem;
}

/** A star-ish simple ring of `n` distinct positions around São Paulo, closed. */
function ringOf(n: number, radius = 0.01, wobble = 0.3): LonLat[] {
  const ring: LonLat[] = [];
  for (let i = 0; i < n; i += 1) {
    const a = (2 * Math.PI * i) / n;
    const r = radius * (1 + wobble * Math.sin(7 * a));
    ring.push([-46.6 + r * Math.cos(a), -23.5 + r * Math.sin(a)]);
  }
  return [...ring, ring[0]!];
}

describe('parseGeofence: the kinds D13 names', () => {
  it('when a Point comes with radius_m, then it is a circle around it and the geometry is answered as sent', () => {
    const fence = parsed({ ...circle(), description: 'Main yard' });
    expect(fence).toEqual({
      name: 'Depot', description: 'Main yard', geometry: { type: 'Point', coordinates: [-46.63, -23.55] },
      shape: { kind: 'circle', center: [-46.63, -23.55], radiusM: 200 }, radiusM: 200, widthM: null,
    });
  });

  it('when a Polygon has a hole, then both rings are kept, holes after the outer ring, in either winding', () => {
    const fence = parsed(polygon(SQUARE, HOLE));
    expect(fence.shape).toEqual({ kind: 'polygon', rings: [SQUARE, HOLE] });
    expect(fence.geometry).toEqual({ type: 'Polygon', coordinates: [SQUARE, HOLE] });
    expect(parsed(polygon([...SQUARE].reverse())).shape.kind).toBe('polygon');
  });

  it('when a LineString comes with width_m, then it is a corridor; a line may cross itself', () => {
    const fence = parsed(corridor());
    expect(fence.shape).toEqual({ kind: 'corridor', line: [[-46.7, -23.5], [-46.6, -23.6]], widthM: 100 });
    expect(fence.widthM).toBe(100);
    const crossing = parsed(corridor({ geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1], [1, 0], [0, 1]] } }));
    expect(crossing.shape.kind).toBe('corridor');
  });

  it('when positions carry an altitude, then it is dropped from the shape and the answer', () => {
    const fence = parsed({ ...circle(), geometry: { type: 'Point', coordinates: [-46.63, -23.55, 760] } });
    expect(fence.geometry).toEqual({ type: 'Point', coordinates: [-46.63, -23.55] });
    const ring = SQUARE.map(([lon, lat]) => [lon, lat, 0]);
    expect(parsed(polygon(ring)).geometry).toEqual({ type: 'Polygon', coordinates: [SQUARE] });
  });

  it('when a position repeats the one before it, then it is answered as sent but left out of the shape', () => {
    const ring: LonLat[] = [SQUARE[0]!, SQUARE[1]!, SQUARE[1]!, SQUARE[2]!, SQUARE[3]!, SQUARE[4]!];
    const fence = parsed(polygon(ring));
    expect(fence.geometry.coordinates).toEqual([ring]);
    expect(fence.shape).toEqual({ kind: 'polygon', rings: [SQUARE] });
    const line = parsed(corridor({ geometry: { type: 'LineString', coordinates: [[0, 0], [0, 0], [1, 1]] } }));
    expect(line.shape).toEqual({ kind: 'corridor', line: [[0, 0], [1, 1]], widthM: 100 });
  });

  it('when the name has spaces around it, then it is trimmed; a description keeps its lines; a null description is none', () => {
    expect(parsed({ ...circle(), name: '  Depot \n' }).name).toBe('Depot');
    expect(parsed({ ...circle(), description: 'Gate 2\n\tnight shift' }).description).toBe('Gate 2\n\tnight shift');
    expect(parsed({ ...circle(), description: null }).description).toBeNull();
  });

  it('when the bounds are at their limits, then they are accepted: 10 and 50,000 m, 1,024 positions, ±180 and ±90', () => {
    expect(parsed(circle({ radius_m: 10 })).radiusM).toBe(10);
    expect(parsed(circle({ radius_m: 50_000 })).radiusM).toBe(50_000);
    expect(parsed(corridor({ width_m: 10.5 })).widthM).toBe(10.5);
    expect(parsed(polygon(ringOf(1023))).shape.kind).toBe('polygon');
    const line = Array.from({ length: 1024 }, (_, i) => [-46 + i / 1000, -23]);
    expect(parsed(corridor({ geometry: { type: 'LineString', coordinates: line } })).shape.kind).toBe('corridor');
    expect(parsed({ ...circle(), geometry: { type: 'Point', coordinates: [180, -90] } }).geometry.coordinates).toEqual([180, -90]);
    expect(parsed({ ...circle(), name: 'x'.repeat(200), description: 'y'.repeat(2000) }).name).toHaveLength(200);
    expect(parsed({ ...circle(), name: '🚚'.repeat(200) }).name).toBe('🚚'.repeat(200));
  });

  it('when a geometry carries a bbox, then it is accepted and dropped', () => {
    expect(parsed({ ...circle(), geometry: { type: 'Point', coordinates: [1, 2], bbox: [1, 2, 1, 2] } }).geometry).toEqual({ type: 'Point', coordinates: [1, 2] });
  });
});

describe('parseGeofence: every refusal names its problem', () => {
  const bowtie: LonLat[] = [[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]];
  it.each<[string, unknown, string]>([
    ['a body that is an array', [], 'the body must be a JSON object'],
    ['an unknown field', { ...circle(), radius: 5 }, 'unknown field "radius": the fields are name, description, geometry, radius_m and width_m'],
    ['no name', { geometry: circle().geometry, radius_m: 100 }, 'name is required'],
    ['a name that is a number', circle({ name: 7 }), 'name must be a string'],
    ['a blank name', circle({ name: '   ' }), 'name must be 1 to 200 characters once trimmed'],
    ['a name of 201 characters', circle({ name: 'x'.repeat(201) }), 'name must be 1 to 200 characters once trimmed'],
    ['a name with an escape', circle({ name: 'a\u001b[2Jb' }), 'name must not contain control or invisible formatting characters (U+001B)'],
    ['a name with NUL', circle({ name: 'a\u0000b' }), 'name must not contain control or invisible formatting characters (U+0000)'],
    ['a name with a lone surrogate', circle({ name: 'a\ud800b' }), 'name must be valid Unicode (it holds a lone surrogate)'],
    ['a description that is an object', circle({ description: {} }), 'description must be a string'],
    ['a description of 2,001 characters', circle({ description: 'y'.repeat(2001) }), 'description must be at most 2000 characters'],
    ['a description with a bidirectional override', circle({ description: 'a\u202eb' }), 'description must not contain control or invisible formatting characters (U+202E)'],
    ['no geometry', { name: 'x', radius_m: 100 }, 'geometry is required: a GeoJSON Point, Polygon or LineString'],
    ['a geometry that is a string', { name: 'x', geometry: 'POINT(1 2)' }, 'geometry must be a GeoJSON object: a Point, Polygon or LineString'],
    ['a Feature', { name: 'x', geometry: { type: 'Feature', geometry: circle().geometry } }, 'geometry must be a GeoJSON geometry, not a Feature: send the Point, Polygon or LineString itself'],
    ['a FeatureCollection', { name: 'x', geometry: { type: 'FeatureCollection', features: [] } }, 'geometry must be a GeoJSON geometry, not a FeatureCollection: send the Point, Polygon or LineString itself'],
    ['a MultiPolygon', { name: 'x', geometry: { type: 'MultiPolygon', coordinates: [[SQUARE]] } }, 'geometry type MultiPolygon is not supported: use one Point, Polygon or LineString per geofence'],
    ['a GeometryCollection', { name: 'x', geometry: { type: 'GeometryCollection', geometries: [] } }, 'geometry type GeometryCollection is not supported: use one Point, Polygon or LineString per geofence'],
    ['a type in lower case', { name: 'x', geometry: { type: 'point', coordinates: [1, 2] } }, 'geometry type must be Point, Polygon or LineString'],
    ['no type', { name: 'x', geometry: { coordinates: [1, 2] } }, 'geometry type must be Point, Polygon or LineString'],
    ['a crs member', { ...circle(), geometry: { type: 'Point', coordinates: [1, 2], crs: { type: 'name' } } }, 'geometry has an unknown member "crs": a geometry has type and coordinates'],
    ['no coordinates', { ...circle(), geometry: { type: 'Point' } }, 'geometry.coordinates is required'],
    ['a Point with one number', { ...circle(), geometry: { type: 'Point', coordinates: [1] } }, 'geometry.coordinates must be a position [longitude, latitude]'],
    ['a Point with four numbers', { ...circle(), geometry: { type: 'Point', coordinates: [1, 2, 3, 4] } }, 'geometry.coordinates must be a position [longitude, latitude]'],
    ['a Point of strings', { ...circle(), geometry: { type: 'Point', coordinates: ['1', '2'] } }, 'geometry.coordinates must hold finite numbers'],
    ['a Point at infinity (1e400 in JSON)', { ...circle(), geometry: { type: 'Point', coordinates: [Infinity, 2] } }, 'geometry.coordinates must hold finite numbers'],
    ['latitude first', { ...circle(), geometry: { type: 'Point', coordinates: [-23.55, -146.63] } }, 'geometry.coordinates: latitude -146.63 is outside -90 to 90'],
    ['a longitude past 180', { ...circle(), geometry: { type: 'Point', coordinates: [180.5, 0] } }, 'geometry.coordinates: longitude 180.5 is outside -180 to 180'],
    ['a Point without radius_m', { name: 'x', geometry: circle().geometry }, 'radius_m is required with a Point geometry'],
    ['radius_m below 10', circle({ radius_m: 9.99 }), 'radius_m must be a number from 10 to 50000'],
    ['radius_m above 50,000', circle({ radius_m: 50_001 }), 'radius_m must be a number from 10 to 50000'],
    ['radius_m as a string', circle({ radius_m: '200' }), 'radius_m must be a number from 10 to 50000'],
    ['width_m on a Point', circle({ width_m: 100 }), 'width_m is only for a LineString geometry'],
    ['radius_m on a Polygon', { ...polygon(SQUARE), radius_m: 100 }, 'radius_m is only for a Point geometry'],
    ['width_m on a Polygon', { ...polygon(SQUARE), width_m: 100 }, 'width_m is only for a LineString geometry'],
    ['radius_m on a LineString', corridor({ radius_m: 100 }), 'radius_m is only for a Point geometry'],
    ['a LineString without width_m', { name: 'x', geometry: corridor().geometry }, 'width_m is required with a LineString geometry'],
    ['width_m of 0', corridor({ width_m: 0 }), 'width_m must be a number from 10 to 50000'],
    ['a LineString of one position', corridor({ geometry: { type: 'LineString', coordinates: [[1, 2]] } }), 'geometry: a LineString needs at least 2 distinct positions'],
    ['a LineString of one position twice', corridor({ geometry: { type: 'LineString', coordinates: [[1, 2], [1, 2]] } }), 'geometry: a LineString needs at least 2 distinct positions'],
    ['a LineString that is a position', corridor({ geometry: { type: 'LineString', coordinates: [1, 2] } }), 'geometry.coordinates[0] must be a position [longitude, latitude]'],
    ['a LineString given as an object', corridor({ geometry: { type: 'LineString', coordinates: { 0: [1, 2] } } }), 'geometry.coordinates must be a list of positions'],
    ['a LineString of 1,025 positions', corridor({ geometry: { type: 'LineString', coordinates: Array.from({ length: 1025 }, (_, i) => [i / 10000, 0]) } }), 'geometry has 1,025 positions; at most 1,024'],
    ['a LineString position out of range', corridor({ geometry: { type: 'LineString', coordinates: [[1, 2], [1, 91]] } }), 'geometry.coordinates[1]: latitude 91 is outside -90 to 90'],
    ['a Polygon without rings', polygon(), 'geometry.coordinates must hold at least the outer ring'],
    ['a Polygon given as a ring', { name: 'x', geometry: { type: 'Polygon', coordinates: SQUARE } }, 'geometry.coordinates[0] must be a ring (a list of positions), not a position'],
    ['a Polygon of positions, not rings', { name: 'x', geometry: { type: 'Polygon', coordinates: [1, 2] } }, 'geometry.coordinates must be a list of rings, each a list of positions'],
    ['a ring of 3 positions', polygon([[0, 0], [1, 0], [0, 0]]), 'geometry: ring 0 has 3 positions; a ring needs at least 4 (the last one equal to the first)'],
    ['a ring not closed', polygon(SQUARE.slice(0, 4).concat([[-46.64, -23.55]])), 'geometry: ring 0 is not closed: its last position must equal its first'],
    ['a ring of one position', polygon([[1, 1], [1, 1], [1, 1], [1, 1]]), 'geometry: ring 0 encloses no area'],
    ['a ring along a line', polygon([[0, 0], [1, 0], [2, 0], [0, 0]]), 'geometry: ring 0 encloses no area'],
    ['a ring position that is not finite', polygon([[0, 0], [1, 0], [1, null], [0, 0]]), 'geometry.coordinates[0][2] must hold finite numbers'],
    ['a hole position out of range', polygon(SQUARE, [[0, 0], [1, 0], [1, -95], [0, 0]]), 'geometry.coordinates[1][2]: latitude -95 is outside -90 to 90'],
    ['a Polygon of 1,300 positions', polygon(ringOf(1299)), 'geometry has 1,300 positions; at most 1,024'],
    ['a Polygon of 1,025 positions over two rings', polygon(ringOf(999), ringOf(24, 0.001)), 'geometry has 1,025 positions; at most 1,024'],
    ['a bow tie', polygon(bowtie), 'geometry: ring 0 intersects itself: the edge from position 2 crosses or touches the edge from position 0'],
    ['a figure eight touching at a position', polygon([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2], [1, 1], [0, 0]]), 'geometry: ring 0 intersects itself: the edge from position 4 crosses or touches the edge from position 1'],
    ['a spike running back along an edge', polygon([[0, 0], [2, 0], [2, 2], [2, 3], [2, 1], [0, 2], [0, 0]]), 'geometry: ring 0 intersects itself: the edge from position 3 crosses or touches the edge from position 1'],
    ['a ring touching its own edge at a position', polygon([[0, 0], [4, 0], [4, 4], [2, 0], [0, 4], [0, 0]]), 'geometry: ring 0 intersects itself: the edge from position 2 crosses or touches the edge from position 0'],
    ['a hole crossing the outer ring', polygon(SQUARE, [[-46.63, -23.55], [-46.60, -23.55], [-46.60, -23.545], [-46.63, -23.545], [-46.63, -23.55]]), "geometry: ring 1 crosses or touches ring 0: its edge from position 0 meets ring 0's edge from position 1"],
    ['a hole touching the outer ring', polygon(SQUARE, [[-46.64, -23.55], [-46.63, -23.555], [-46.63, -23.545], [-46.64, -23.55]]), "geometry: ring 1 crosses or touches ring 0: its edge from position 0 meets ring 0's edge from position 3"],
    ['a hole outside the outer ring', polygon(SQUARE, [[0, 0], [1, 0], [1, 1], [0, 0]]), 'geometry: ring 1 (a hole) is not inside ring 0'],
    ['two holes crossing', polygon(SQUARE, HOLE, [[-46.63, -23.558], [-46.628, -23.558], [-46.628, -23.55], [-46.63, -23.55], [-46.63, -23.558]]), "geometry: ring 2 crosses or touches ring 1: its edge from position 1 meets ring 1's edge from position 3"],
    ['a hole inside a hole', polygon(SQUARE, HOLE, [[-46.631, -23.551], [-46.629, -23.551], [-46.629, -23.549], [-46.631, -23.551]]), 'geometry: ring 2 (a hole) lies inside ring 1, another hole'],
    ['the same ring twice', polygon(SQUARE, SQUARE), "geometry: ring 1 crosses or touches ring 0: its edge from position 0 meets ring 0's edge from position 0"],
  ])('when %s, then refused', (_label, body, text) => {
    expect(problem(body)).toBe(text);
  });

  it('when a member name is long or unprintable, then the detail shows it shortened and escaped', () => {
    expect(problem({ ...circle(), ['\u001b'.repeat(3) + 'x'.repeat(60)]: 1 })).toBe(`unknown field "???${'x'.repeat(37)}": the fields are name, description, geometry, radius_m and width_m`);
  });
});

describe('ring crossings: the sweep agrees with comparing every pair of edges', () => {
  function bruteForceSimple(ring: readonly LonLat[]): boolean {
    const n = ring.length - 1;
    for (let i = 0; i < n; i += 1) {
      for (let j = i + 1; j < n; j += 1) {
        const neighbours = j === i + 1 || (i === 0 && j === n - 1);
        if (neighbours) continue;
        if (segmentsMeet(ring[i]!, ring[i + 1]!, ring[j]!, ring[j + 1]!)) return false;
      }
    }
    return true;
  }
  /** A deterministic generator, so a failure can be replayed. */
  function random(seed: number): () => number {
    let s = seed;
    return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  }

  it('when 500 random rings of 4 to 12 distinct positions on a small grid are checked, then the sweep finds a crossing exactly when one exists', () => {
    const next = random(59);
    let crossing = 0;
    for (let k = 0; k < 500; k += 1) {
      const n = 4 + Math.floor(next() * 9);
      const seen = new Set<string>();
      const ring: LonLat[] = [];
      while (ring.length < n) {
        // A 6 × 6 grid makes collinear edges and shared positions common.
        const p: LonLat = [Math.floor(next() * 6), Math.floor(next() * 6)];
        if (!seen.has(`${p[0]},${p[1]}`)) { seen.add(`${p[0]},${p[1]}`); ring.push(p); }
      }
      ring.push(ring[0]!);
      // Neighbours folding back over each other are the sweep's own case; leave them to the unit cases above.
      const folds = ring.slice(0, -1).some((q, i) => {
        const p = ring[(i + n - 1) % n]!;
        const r = ring[i + 1]!;
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]) === 0 && (q[0] - p[0]) * (r[0] - q[0]) + (q[1] - p[1]) * (r[1] - q[1]) < 0;
      });
      if (folds) continue;
      const sweep = polygonStructureProblem([ring]) === undefined;
      expect(sweep, JSON.stringify(ring)).toBe(bruteForceSimple(ring));
      if (!sweep) crossing += 1;
    }
    expect(crossing).toBeGreaterThan(50);
  });

  it('when a simple ring of 1,024 positions is parsed, then it is accepted', () => {
    expect(polygonStructureProblem([ringOf(1023)])).toBeUndefined();
  });
});

describe('fence bounds: never smaller than the shape', () => {
  it('when a polygon, then the outer ring\'s extent', () => {
    expect(fenceBounds({ kind: 'polygon', rings: [SQUARE, HOLE] })).toEqual([-46.64, -23.56, -46.62, -23.54]);
  });

  it('when a circle of 1 km at São Paulo, then at least 1 km each way, and not much more', () => {
    const [minLon, minLat, maxLon, maxLat] = fenceBounds({ kind: 'circle', center: [-46.63, -23.55], radiusM: 1000 });
    // A degree of latitude is about 110.8 km there; of longitude, about 102.1 km.
    expect(maxLat - -23.55).toBeGreaterThan(1000 / 110_800);
    expect(maxLat - -23.55).toBeLessThan(1.01 * 1000 / 110_574);
    expect(-23.55 - minLat).toBeCloseTo(maxLat - -23.55, 12);
    expect(maxLon - -46.63).toBeGreaterThan(1000 / 102_100);
    expect(-46.63 - minLon).toBeLessThan(1000 / 100_000);
  });

  it('when a corridor, then the line\'s extent widened by half its width', () => {
    const [minLon, minLat, maxLon, maxLat] = fenceBounds({ kind: 'corridor', line: [[0, 0], [1, 1]], widthM: 2000 });
    expect(minLat).toBeCloseTo(-1000 / 110_574, 9);
    expect(maxLat).toBeCloseTo(1 + 1000 / 110_574, 9);
    expect(minLon).toBeLessThan(-1000 / 111_320);
    expect(maxLon).toBeGreaterThan(1 + 1000 / 111_320);
  });

  it('when a circle reaches a pole or across the antimeridian, then every longitude is in', () => {
    expect(fenceBounds({ kind: 'circle', center: [10, 89.99], radiusM: 5000 })).toEqual([-180, expect.closeTo(89.99 - 5000 / 110_574, 9), 180, 90]);
    const [west, , east] = fenceBounds({ kind: 'circle', center: [179.999, 0], radiusM: 1000 });
    expect([west, east]).toEqual([-180, 180]);
  });
});
