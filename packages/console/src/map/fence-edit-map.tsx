/**
 * The Geofences screen's map: every fence of the company, the chosen one outlined and zoomed to,
 * and the fence being drawn with its handles. Clicks on the canvas add points to the draft (or,
 * with no draft, choose the fence under them); clicks on a handle never reach the canvas. The box
 * carries `data-bounds` (west,south,east,north of the view) so a test can tell where a click lands.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { GeoJSONSource, LayerSpecification, Map as MapLibreMap } from 'maplibre-gl';
import { useI18n } from '../i18n/i18n.js';
import type { FenceDraft } from '../screens/geofences/fence-draft.js';
import { draftShape, takesPoints } from '../screens/geofences/fence-draft.js';
import type { Geofence } from '../screens/geofences/geofence-types.js';
import type { Basemap } from '../types.js';
import { DraftMarkers } from './draft-markers.js';
import { addFenceLayers, highlightFence, setFences } from './fence-layers.js';
import { fenceBounds, fenceFeature, METRIC_LINE_WIDTH, type Position } from './fence-shapes.js';
import { MapView } from './map-view.js';

export interface FenceEditMapProps {
  readonly fences: readonly Geofence[];
  readonly selectedId: string | undefined;
  readonly draft: FenceDraft | undefined;
  readonly basemap: Basemap | null;
  onSelect(id: string): void;
  onPoint(at: Position): void;
  onMove(index: number, to: Position): void;
  onRadius(metres: number): void;
  onFinish(): void;
}

const DRAFT_COLOUR = '#c2185b';
const DRAFT_LAYERS = [
  { id: 'draft-fill', type: 'fill', source: 'draft', filter: ['==', ['get', 'kind'], 'area'], paint: { 'fill-color': DRAFT_COLOUR, 'fill-opacity': 0.15 } },
  { id: 'draft-band', type: 'line', source: 'draft', filter: ['==', ['get', 'kind'], 'corridor'], layout: { 'line-cap': 'round', 'line-join': 'round' }, paint: { 'line-color': DRAFT_COLOUR, 'line-opacity': 0.22, 'line-width': METRIC_LINE_WIDTH } },
  { id: 'draft-line', type: 'line', source: 'draft', paint: { 'line-color': DRAFT_COLOUR, 'line-width': 2, 'line-dasharray': [2, 1] } },
] as unknown as LayerSpecification[];

export function FenceEditMap(props: FenceEditMapProps) {
  const { t } = useI18n();
  const latest = useRef(props);
  latest.current = props;
  // Handle titles follow a language switch made while the map stays.
  const text = useRef(t);
  text.current = t;
  const [map, setMap] = useState<MapLibreMap | undefined>(undefined);
  const markers = useRef<DraftMarkers | undefined>(undefined);
  const fitted = useRef(false);

  const onMap = (created: MapLibreMap) => {
    const box = created.getContainer();
    const tellBounds = () => { box.dataset.bounds = created.getBounds().toArray().flat().map((x) => x.toFixed(7)).join(','); };
    created.on('moveend', tellBounds);
    created.on('load', () => {
      addFenceLayers(created);
      created.addSource('draft', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
      for (const layer of DRAFT_LAYERS) created.addLayer(layer);
      created.on('click', (event) => {
        // A click on a handle (a DOM marker) is the handle's, not a new point.
        if (event.originalEvent.target !== created.getCanvas()) return;
        const { draft } = latest.current;
        if (draft) {
          if (takesPoints(draft)) latest.current.onPoint([event.lngLat.lng, event.lngLat.lat]);
          return;
        }
        const hit = created.queryRenderedFeatures(event.point, { layers: ['fences-fill', 'fences-band'] })[0];
        if (hit?.properties?.id) latest.current.onSelect(String(hit.properties.id));
      });
      markers.current = new DraftMarkers(created, {
        move: (i, to) => latest.current.onMove(i, to),
        radius: (m) => latest.current.onRadius(m),
        finish: () => latest.current.onFinish(),
        title: (kind, n) => text.current(kind === 'vertex' ? 'vertexTitle' : kind === 'first' ? 'firstVertexTitle' : kind === 'centre' ? 'centreTitle' : 'radiusHandleTitle', { n }),
      });
      tellBounds();
      setMap(created);
    });
    return () => markers.current?.remove();
  };

  // The fences, less the one being edited (its draft is drawn instead); the first time, the view fits them all.
  const editing = props.draft?.id;
  useEffect(() => {
    if (!map) return;
    const shown = props.fences.filter((f) => f.id !== editing);
    setFences(map, shown).catch((error: unknown) => console.warn('geofences not drawn', error));
    if (!fitted.current && shown.length > 0) {
      fitted.current = true;
      fitBoxes(map, shown.map((f) => fenceBounds(f)));
    }
  }, [map, props.fences, editing]);

  useEffect(() => {
    if (!map) return;
    highlightFence(map, props.selectedId);
    const fence = props.fences.find((f) => f.id === props.selectedId);
    if (fence) fitBoxes(map, [fenceBounds(fence)]);
  }, [map, props.selectedId, props.fences]);

  useEffect(() => {
    if (!map) return;
    const { draft } = props;
    const { shape, path } = draft ? draftShape(draft) : {};
    const features = [
      ...(shape ? [fenceFeature(shape)] : []),
      ...(path && path.length > 1 ? [{ type: 'Feature', properties: { kind: 'path' }, geometry: { type: 'LineString', coordinates: path } }] : []),
    ];
    (map.getSource('draft') as GeoJSONSource | undefined)?.setData({ type: 'FeatureCollection', features } as never);
    markers.current?.set(draft ? { kind: draft.kind, points: draft.points, radiusM: draft.radius_m, open: draft.kind === 'polygon' && !draft.closed } : undefined);
    map.getCanvas().style.cursor = draft && takesPoints(draft) ? 'crosshair' : '';
  }, [map, props.draft]);

  return <MapView basemap={props.basemap} label={t('mapOfGeofences')} onMap={onMap} />;
}

function fitBoxes(map: MapLibreMap, boxes: readonly [number, number, number, number][]): void {
  let [w, s, e, n] = [180, 90, -180, -90];
  for (const [bw, bs, be, bn] of boxes) {
    w = Math.min(w, bw); s = Math.min(s, bs); e = Math.max(e, be); n = Math.max(n, bn);
  }
  if (w <= e && s <= n) map.fitBounds([[w, s], [e, n]], { padding: 40, maxZoom: 16, duration: 0 });
}
