import { useEffect, useRef } from 'preact/hooks';
import { Marker, type GeoJSONSource, type Map as MapLibreMap } from 'maplibre-gl';
import type { Basemap } from '../types.js';
import { showCompanyFences } from './fence-layers.js';
import { fitTo } from './fleet-map.js';
import { MapView } from './map-view.js';

/** A track (a window of records, or a trip's route) with a marker at the shared cursor, over the company's geofences. */
export function TrackMap(props: { points: readonly [number, number][]; cursor: number | undefined; basemap: Basemap | null; label: string }) {
  const mapRef = useRef<MapLibreMap | undefined>(undefined);
  const markerRef = useRef<Marker | undefined>(undefined);
  const line = () => ({ type: 'Feature' as const, properties: {}, geometry: { type: 'LineString' as const, coordinates: props.points.map((p) => [...p]) } });
  useEffect(() => {
    (mapRef.current?.getSource('track') as GeoJSONSource | undefined)?.setData(line());
    if (mapRef.current) fitTo(mapRef.current, props.points);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.points]);
  useEffect(() => {
    const map = mapRef.current;
    const point = props.cursor === undefined ? undefined : props.points[props.cursor];
    if (!map || !point) {
      markerRef.current?.remove();
      markerRef.current = undefined;
      return;
    }
    if (!markerRef.current) markerRef.current = new Marker({ color: '#c2185b' }).setLngLat(point).addTo(map);
    else markerRef.current.setLngLat(point);
  }, [props.cursor, props.points]);
  const onMap = (map: MapLibreMap) => {
    let hideFences: (() => void) | undefined;
    map.on('load', () => {
      map.addSource('track', { type: 'geojson', data: line() });
      map.addLayer({ id: 'track', type: 'line', source: 'track', paint: { 'line-color': '#c2185b', 'line-width': 3 } });
      hideFences = showCompanyFences(map, 'track');
      fitTo(map, props.points);
      mapRef.current = map;
    });
    return () => hideFences?.();
  };
  return <MapView basemap={props.basemap} label={props.label} onMap={onMap} />;
}
