/**
 * The map's style, built in code so that a basemap that cannot be reached never blanks the map:
 * a neutral background, Natural Earth land and borders shipped with the console (public domain,
 * from mapeo-offline-map; no network), the operator's optional basemap above them, and the
 * overlays always on top. No symbol layer: labels need glyphs, which would be a download.
 */
import type { StyleSpecification } from 'maplibre-gl';
import landUrl from 'mapeo-offline-map/dist/land.json?url';
import bordersUrl from 'mapeo-offline-map/dist/boundaries.json?url';
import type { Basemap } from '../types.js';

export const STATE_COLOURS: Record<string, string> = {
  moving: '#1b7f3b', idle: '#b35c00', parked: '#1f5fa8', online: '#5b3fa0', offline: '#6b6b6b', no_data: '#6b6b6b',
};

export function baseStyle(basemap: Basemap | null): StyleSpecification {
  const style: StyleSpecification = {
    version: 8,
    sources: {
      land: { type: 'geojson', data: landUrl },
      borders: { type: 'geojson', data: bordersUrl },
    },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': '#cfe3f2' } },
      { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#f3efe6' } },
      { id: 'borders', type: 'line', source: 'borders', paint: { 'line-color': '#9a8f80', 'line-width': 0.8 } },
    ],
  };
  if (basemap?.kind === 'raster') {
    style.sources.basemap = { type: 'raster', tiles: [basemap.tiles], tileSize: 256, attribution: basemap.attribution };
    style.layers.push({ id: 'basemap', type: 'raster', source: 'basemap' });
  }
  return style;
}
