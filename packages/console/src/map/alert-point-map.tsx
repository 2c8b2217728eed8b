/**
 * One alert's position on a map: a point layer, centred on it. The box says what it draws
 * (`data-alert-points`: the [longitude, latitude] pairs in its layer) so tests can check the
 * position without reading the canvas.
 */
import { useEffect, useRef } from 'preact/hooks';
import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import type { Basemap } from '../types.js';
import { MapView } from './map-view.js';

const ALERT_COLOUR = '#b3261e';

export function AlertPointMap(props: { point: [number, number] | undefined; basemap: Basemap | null; label: string }) {
  const mapRef = useRef<MapLibreMap | undefined>(undefined);
  const points = () => (props.point ? [props.point] : []);
  const collection = () => ({
    type: 'FeatureCollection' as const,
    features: points().map((p) => ({ type: 'Feature' as const, properties: {}, geometry: { type: 'Point' as const, coordinates: [...p] } })),
  });
  const show = (map: MapLibreMap) => {
    // The pane may have been laid out after the map was made (the table beside it grew): size to it.
    map.resize();
    (map.getSource('alert') as GeoJSONSource | undefined)?.setData(collection());
    map.getContainer().dataset.alertPoints = JSON.stringify(points());
    if (props.point) map.jumpTo({ center: props.point, zoom: Math.max(map.getZoom(), 13) });
  };
  useEffect(() => {
    if (mapRef.current) show(mapRef.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.point?.[0], props.point?.[1]]);
  const onMap = (map: MapLibreMap) => {
    map.on('load', () => {
      map.addSource('alert', { type: 'geojson', data: collection() });
      map.addLayer({ id: 'alert', type: 'circle', source: 'alert', paint: { 'circle-radius': 8, 'circle-color': ALERT_COLOUR, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } });
      mapRef.current = map;
      show(map);
    });
  };
  return <MapView basemap={props.basemap} label={props.label} onMap={onMap} />;
}
