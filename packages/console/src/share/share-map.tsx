import { useEffect, useRef } from 'preact/hooks';
import { Marker, type Map as MapLibreMap } from 'maplibre-gl';
import type { Basemap } from '../types.js';
import { MapView } from '../map/map-view.js';

type Position = { readonly latitude: number; readonly longitude: number } | null;

/** One marker at the shared position, the map kept centred on it as it moves. */
export function ShareMap(props: { position: Position; basemap: Basemap | null; label: string }) {
  const mapRef = useRef<MapLibreMap | undefined>(undefined);
  const markerRef = useRef<Marker | undefined>(undefined);
  const place = (map: MapLibreMap, position: Position) => {
    if (!position) return;
    const point: [number, number] = [position.longitude, position.latitude];
    if (!markerRef.current) {
      markerRef.current = new Marker({ color: '#c2185b' }).setLngLat(point).addTo(map);
      map.jumpTo({ center: point, zoom: 14 });
    } else {
      markerRef.current.setLngLat(point);
      map.easeTo({ center: point });
    }
  };
  // The newest position, for a map that finishes loading after a poll has moved it.
  const latest = useRef<Position>(props.position);
  latest.current = props.position;
  useEffect(() => { if (mapRef.current) place(mapRef.current, props.position); }, [props.position?.latitude, props.position?.longitude]);
  const onMap = (map: MapLibreMap) => {
    map.on('load', () => {
      mapRef.current = map;
      place(map, latest.current);
    });
  };
  return <MapView basemap={props.basemap} label={props.label} onMap={onMap} />;
}
