import { useEffect, useRef } from 'preact/hooks';
import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import { useLocation } from 'preact-iso';
import { useI18n } from '../i18n/i18n.js';
import { numberOf } from '../parts/vehicle-status.js';
import type { Basemap, VehicleLatest } from '../types.js';
import { STATE_COLOURS } from './base-style.js';
import { showCompanyFences } from './fence-layers.js';
import { MapView } from './map-view.js';
import { VehicleLabels, type VehicleLabel } from './vehicle-labels.js';

/** The last known positions, coloured by state and labelled with the plate, over the company's geofences; a click opens the vehicle. */
export function FleetMap(props: { rows: readonly (VehicleLatest & { readonly plate?: string })[]; basemap: Basemap | null }) {
  const { t } = useI18n();
  const { route } = useLocation();
  const mapRef = useRef<MapLibreMap | undefined>(undefined);
  const labelsRef = useRef<VehicleLabels | undefined>(undefined);
  const labels = (): VehicleLabel[] => props.rows.flatMap((r) => {
    const lat = numberOf(r.record, 'latitude');
    const lon = numberOf(r.record, 'longitude');
    const plate = r.plate || r.vin;
    return lat === undefined || lon === undefined ? [] : [{ vin: r.vin, plate, title: t('vehicleOnMap', { plate, state: t(`state_${r.state}`) }), lngLat: [lon, lat] }];
  });
  const collection = () => ({
    type: 'FeatureCollection' as const,
    features: props.rows.flatMap((r) => {
      const lat = numberOf(r.record, 'latitude');
      const lon = numberOf(r.record, 'longitude');
      return lat === undefined || lon === undefined ? [] : [{
        type: 'Feature' as const, properties: { vin: r.vin, colour: STATE_COLOURS[r.state] ?? '#333' }, geometry: { type: 'Point' as const, coordinates: [lon, lat] },
      }];
    }),
  });
  useEffect(() => {
    const map = mapRef.current;
    const source = map?.getSource('vehicles') as GeoJSONSource | undefined;
    source?.setData(collection());
    labelsRef.current?.set(labels());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.rows]);
  const onMap = (map: MapLibreMap) => {
    mapRef.current = map;
    let hideFences: (() => void) | undefined;
    map.on('load', () => {
      const data = collection();
      map.addSource('vehicles', { type: 'geojson', data });
      map.addLayer({ id: 'vehicles', type: 'circle', source: 'vehicles', paint: { 'circle-radius': 7, 'circle-color': ['get', 'colour'], 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } });
      hideFences = showCompanyFences(map, 'vehicles');
      fitTo(map, data.features.map((f) => f.geometry.coordinates as [number, number]));
      labelsRef.current = new VehicleLabels(map, (vin) => route(`/console/vehicles/${vin}`));
      labelsRef.current.set(labels());
      map.on('click', 'vehicles', (event) => {
        const vin = event.features?.[0]?.properties?.vin as string | undefined;
        if (vin) route(`/console/vehicles/${vin}`);
      });
      map.on('mouseenter', 'vehicles', () => { map.getCanvas().style.cursor = 'pointer'; });
      map.on('mouseleave', 'vehicles', () => { map.getCanvas().style.cursor = ''; });
    });
    return () => hideFences?.();
  };
  useEffect(() => () => labelsRef.current?.remove(), []);
  return <MapView basemap={props.basemap} label={t('mapOfFleet')} onMap={onMap} />;
}

export function fitTo(map: MapLibreMap, points: readonly [number, number][]): void {
  if (points.length === 0) return;
  let [w, s, e, n] = [180, 90, -180, -90];
  for (const [lon, lat] of points) {
    w = Math.min(w, lon); e = Math.max(e, lon); s = Math.min(s, lat); n = Math.max(n, lat);
  }
  map.fitBounds([[w, s], [e, n]], { padding: 40, maxZoom: 14, duration: 0 });
}
