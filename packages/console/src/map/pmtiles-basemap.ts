/**
 * A `.pmtiles` basemap (Protomaps vector tiles) served by the service itself, read with HTTP
 * Range requests through the pmtiles protocol. Its own chunk: only installations that set one
 * download the protocol and the layer definitions.
 */
import { addProtocol, type Map as MapLibreMap } from 'maplibre-gl';
import { Protocol } from 'pmtiles';
import { layers, namedFlavor } from '@protomaps/basemaps';
import { BASEMAP_BEFORE } from './base-style.js';

let registered = false;

export function addPmtilesBasemap(map: MapLibreMap, url: string, attribution: string): void {
  if (!registered) {
    addProtocol('pmtiles', new Protocol().tile);
    registered = true;
  }
  map.addSource('basemap', { type: 'vector', url: `pmtiles://${new URL(url, location.href).href}`, attribution });
  // Labels need glyphs (a download), so symbol layers are left out; the background is ours.
  for (const layer of layers('basemap', namedFlavor('light'))) {
    if (layer.type !== 'symbol' && layer.type !== 'background') map.addLayer(layer, BASEMAP_BEFORE);
  }
}
