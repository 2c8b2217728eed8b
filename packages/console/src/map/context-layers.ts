/**
 * What says where on the map without a download: São Paulo's main roads as line layers (the
 * lines the simulated fleet drives, from @telematics/map-data) and place names as HTML labels
 * (text layers would need glyphs, a download). Places are picked at build time from GeoNames
 * (build/places-plugin.ts) and fetched only when a map is shown; a label appears from the zoom
 * its size earns and only inside the view, so a few dozen elements follow the map at most.
 */
import { Marker, type LayerSpecification, type Map as MapLibreMap, type SourceSpecification } from 'maplibre-gl';
import roadsUrl from '@telematics/map-data/sao-paulo-main-roads.json?url';

export const ROADS_ATTRIBUTION = 'Roads: traced, approximate';
export const PLACES_ATTRIBUTION = 'Places: <a href="https://www.geonames.org/">GeoNames</a> (CC BY 4.0)';

export const roadsSource: SourceSpecification = { type: 'geojson', data: roadsUrl, attribution: ROADS_ATTRIBUTION };

/** Highways wider and warmer than avenues; both fade in as the view reaches city scale. */
export const roadLayers: LayerSpecification[] = [
  {
    id: 'roads-arterial', type: 'line', source: 'roads', minzoom: 8, filter: ['==', ['get', 'class'], 'arterial'],
    layout: { 'line-cap': 'round', 'line-join': 'round' },
    paint: { 'line-color': '#ffffff', 'line-width': ['interpolate', ['linear'], ['zoom'], 8, 1, 14, 5], 'line-opacity': 0.95 },
  },
  {
    id: 'roads-highway', type: 'line', source: 'roads', minzoom: 7, filter: ['==', ['get', 'class'], 'highway'],
    layout: { 'line-cap': 'round', 'line-join': 'round' },
    paint: { 'line-color': '#f2b45a', 'line-width': ['interpolate', ['linear'], ['zoom'], 7, 1.5, 14, 7] },
  },
];

type Place = readonly [string, number, number, number];

/** Shows the place labels that fit the view; returns a function that removes them. */
export function showPlaces(map: MapLibreMap, box: HTMLElement): () => void {
  let places: readonly Place[] = [];
  const shown = new Map<string, Marker>();
  const update = () => {
    const zoom = map.getZoom();
    const bounds = map.getBounds();
    const wanted = new Set(places.filter(([, lon, lat, from]) => zoom >= from && bounds.contains([lon, lat])).slice(0, 60).map((p) => p[0]));
    for (const [name, marker] of shown) {
      if (!wanted.has(name)) {
        marker.remove();
        shown.delete(name);
      }
    }
    for (const [name, lon, lat] of places) {
      if (!wanted.has(name) || shown.has(name)) continue;
      const element = document.createElement('span');
      element.className = 'place-label';
      element.textContent = name;
      shown.set(name, new Marker({ element, anchor: 'center' }).setLngLat([lon, lat]).addTo(map));
    }
    box.dataset.placesShown = String(shown.size);
  };
  let stopped = false;
  import('./map-places.js').then((m) => {
    if (stopped) return;
    places = m.default;
    update();
    map.on('moveend', update);
  }).catch((error: unknown) => console.warn('place names unavailable', error));
  return () => {
    stopped = true;
    map.off('moveend', update);
    for (const marker of shown.values()) marker.remove();
  };
}
