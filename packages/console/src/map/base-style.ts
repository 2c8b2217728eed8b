/**
 * The map's style, built in code so that a basemap that cannot be reached never blanks the map:
 * a neutral background, Natural Earth land and borders shipped with the console (public domain,
 * from mapeo-offline-map; no network), the operator's optional basemap above them, and the
 * overlays always on top (screens add them after load). Without a basemap, São Paulo's main roads
 * are drawn over the land (context-layers.ts). No symbol layer: labels need glyphs, which would be
 * a download.
 */
import type { LayerSpecification, Map as MapLibreMap, StyleSpecification } from 'maplibre-gl';
import landUrl from 'mapeo-offline-map/dist/land.json?url';
import bordersUrl from 'mapeo-offline-map/dist/boundaries.json?url';
import type { Basemap } from '../types.js';
import { roadLayers, roadsSource } from './context-layers.js';

export const STATE_COLOURS: Record<string, string> = {
  moving: '#1b7f3b', idle: '#b35c00', parked: '#1f5fa8', online: '#5b3fa0', offline: '#6b6b6b', no_data: '#6b6b6b',
};

/** Basemap layers go under this one: the borders stay readable above any basemap. */
export const BASEMAP_BEFORE = 'borders';

export function baseStyle(basemap: Basemap | null): StyleSpecification {
  const style: StyleSpecification = {
    version: 8,
    sources: {
      land: { type: 'geojson', data: landUrl, attribution: 'Natural Earth' },
      borders: { type: 'geojson', data: bordersUrl },
    },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': '#cfe3f2' } },
      { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#f3efe6' } },
      { id: 'borders', type: 'line', source: 'borders', paint: { 'line-color': '#9a8f80', 'line-width': 0.8 } },
    ],
  };
  // A basemap brings real streets, which the approximate lines would only blur.
  if (basemap === null) {
    style.sources.roads = roadsSource;
    style.layers.push(...roadLayers);
  }
  const below = (layers: LayerSpecification[]) => style.layers.splice(style.layers.findIndex((l) => l.id === BASEMAP_BEFORE), 0, ...layers);
  if (basemap?.kind === 'raster') {
    style.sources.basemap = { type: 'raster', tiles: [basemap.tiles], tileSize: 256, attribution: basemap.attribution };
    below([{ id: 'basemap', type: 'raster', source: 'basemap' }]);
  }
  return style;
}

/**
 * A style URL's sources and layers, added under the overlays once the map has loaded. Its symbol
 * layers are left out (no glyphs); a style that cannot be fetched leaves the map as it is and
 * reports the failure.
 */
export async function addStyleBasemap(map: MapLibreMap, url: string, attribution: string): Promise<void> {
  const response = await fetch(url, { credentials: 'omit' });
  if (!response.ok) throw new Error(`basemap style: HTTP ${response.status}`);
  const style = (await response.json()) as StyleSpecification;
  const ids = new Map<string, string>();
  for (const [id, source] of Object.entries(style.sources ?? {})) {
    const ours = `basemap-${id}`;
    ids.set(id, ours);
    map.addSource(ours, { ...source, ...(attribution ? { attribution } : {}) } as never);
  }
  for (const layer of style.layers ?? []) {
    if (layer.type === 'symbol' || layer.type === 'background') continue;
    const source = 'source' in layer && typeof layer.source === 'string' ? ids.get(layer.source) : undefined;
    map.addLayer({ ...layer, id: `basemap-${layer.id}`, ...(source ? { source } : {}) } as LayerSpecification, BASEMAP_BEFORE);
  }
}
