/**
 * A company's geofences on a map: a translucent fill and an outline for areas (polygons, circles
 * drawn as polygons), a band as wide in metres as the corridor at every zoom and its centre line
 * for corridors, the fence's name as the canvas title on hover. The layers go under the screen's
 * own overlays (vehicles, track), so clicks on vehicles and their labels behave as before; the map
 * box's `data-fences` says how many features the source holds once it has them (tests read it).
 */
import type { GeoJSONSource, LayerSpecification, Map as MapLibreMap } from 'maplibre-gl';
import type { FenceShape } from '../screens/geofences/geofence-types.js';
import { listAllGeofences } from '../screens/geofences/geofences-api.js';
import { fenceFeature, METRIC_LINE_WIDTH } from './fence-shapes.js';

const SOURCE = 'fences';
const FENCE_COLOUR = '#7a3fa8';
const SELECTED_COLOUR = '#c2185b';
const isArea = ['==', ['get', 'kind'], 'area'];
const isCorridor = ['==', ['get', 'kind'], 'corridor'];
const NONE = ['==', ['get', 'id'], ''];

const LAYERS = [
  { id: 'fences-fill', type: 'fill', source: SOURCE, filter: isArea, paint: { 'fill-color': FENCE_COLOUR, 'fill-opacity': 0.12 } },
  { id: 'fences-band', type: 'line', source: SOURCE, filter: isCorridor, layout: { 'line-cap': 'round', 'line-join': 'round' }, paint: { 'line-color': FENCE_COLOUR, 'line-opacity': 0.18, 'line-width': METRIC_LINE_WIDTH } },
  { id: 'fences-outline', type: 'line', source: SOURCE, filter: isArea, paint: { 'line-color': FENCE_COLOUR, 'line-width': 1.5 } },
  { id: 'fences-centre', type: 'line', source: SOURCE, filter: isCorridor, paint: { 'line-color': FENCE_COLOUR, 'line-width': 1.5, 'line-dasharray': [3, 2] } },
  { id: 'fences-selected', type: 'line', source: SOURCE, filter: NONE, paint: { 'line-color': SELECTED_COLOUR, 'line-width': 3 } },
] as unknown as LayerSpecification[];
const HOVERED = ['fences-fill', 'fences-band'];

/** Adds the fence source and layers under `beforeId` (the screen's first overlay), empty until setFences. */
export function addFenceLayers(map: MapLibreMap, beforeId?: string): void {
  map.addSource(SOURCE, { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  const before = beforeId !== undefined && map.getLayer(beforeId) ? beforeId : undefined;
  for (const layer of LAYERS) map.addLayer(layer, before);
  // A name on hover without map text (which would need glyphs): the canvas's title.
  const canvas = map.getCanvas();
  map.on('mousemove', (event) => {
    const names = map.queryRenderedFeatures(event.point, { layers: HOVERED }).map((f) => String(f.properties?.name ?? ''));
    const title = [...new Set(names)].join(', ');
    if (canvas.title !== title) canvas.title = title;
  });
  map.on('mouseout', () => { canvas.title = ''; });
}

export async function setFences(map: MapLibreMap, fences: readonly FenceShape[]): Promise<void> {
  const source = map.getSource(SOURCE) as GeoJSONSource | undefined;
  if (!source) return;
  await source.setData({ type: 'FeatureCollection', features: fences.map(fenceFeature) } as unknown as Parameters<GeoJSONSource['setData']>[0]);
  const data = await source.getData();
  const count = data.type === 'FeatureCollection' ? data.features.length : 0;
  map.getContainer().dataset.fences = String(count);
}

/** Outlines the fence `id` (or none) in the highlight colour. */
export function highlightFence(map: MapLibreMap, id: string | undefined): void {
  if (map.getLayer('fences-selected')) map.setFilter('fences-selected', id === undefined ? NONE as never : ['==', ['get', 'id'], id]);
}

/**
 * The fleet and track maps: loads every page of the company's fences and draws them under
 * `beforeId`. A failure to read them leaves the map as it was (the fences are context).
 */
export function showCompanyFences(map: MapLibreMap, beforeId: string): () => void {
  let stopped = false;
  addFenceLayers(map, beforeId);
  listAllGeofences().then((fences) => (stopped ? undefined : setFences(map, fences)), (error: unknown) => console.warn('geofences unavailable', error));
  return () => { stopped = true; };
}
