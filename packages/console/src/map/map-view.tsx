/**
 * One MapLibre map in a box, with its states exposed as attributes (`data-map-state`: loading,
 * idle, unavailable) so tests and screens can wait for it instead of sleeping. Without WebGL2 the
 * box says so and the screen's tables carry the data.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { Map as MapLibreMap, ScaleControl, setWorkerUrl } from 'maplibre-gl';
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import 'maplibre-gl/dist/maplibre-gl.css';
import { useI18n } from '../i18n/i18n.js';
import type { Basemap } from '../types.js';
import { addStyleBasemap, baseStyle } from './base-style.js';
import { PLACES_ATTRIBUTION, showPlaces } from './context-layers.js';

setWorkerUrl(workerUrl);

export function MapView(props: { basemap: Basemap | null; label: string; onMap(map: MapLibreMap): void | (() => void) }) {
  const { t } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'idle' | 'unavailable'>('loading');
  const [tilesFailed, setTilesFailed] = useState(false);
  useEffect(() => {
    let map: MapLibreMap;
    try {
      map = new MapLibreMap({
        container: box.current!, style: baseStyle(props.basemap), center: [-46.63, -23.55], zoom: 9,
        attributionControl: { compact: true, customAttribution: PLACES_ATTRIBUTION }, fadeDuration: 0,
      });
    } catch (error) {
      console.info('map unavailable', error);
      setState('unavailable');
      return undefined;
    }
    // A failed tile is one error per tile: shown once as a notice, not as console noise.
    map.on('error', (event) => {
      if (String((event as { sourceId?: string }).sourceId ?? '').startsWith('basemap')) setTilesFailed(true);
      else console.warn('map error', event.error?.message);
    });
    const { basemap } = props;
    if (basemap?.kind === 'style') {
      map.once('load', () => { addStyleBasemap(map, basemap.url, basemap.attribution).catch(() => setTilesFailed(true)); });
    } else if (basemap?.kind === 'pmtiles') {
      map.once('load', () => {
        import('./pmtiles-basemap.js').then((m) => m.addPmtilesBasemap(map, basemap.url, basemap.attribution)).catch(() => setTilesFailed(true));
      });
    }
    map.addControl(new ScaleControl({ unit: 'metric' }), 'bottom-left');
    // The compact attribution opens itself on load, over the scale bar and the map's lower edge.
    map.once('load', () => box.current?.querySelector('.maplibregl-ctrl-attrib')?.classList.remove('maplibregl-compact-show'));
    const element = box.current!;
    const hidePlaces = showPlaces(map, element);
    map.on('idle', () => {
      // Tests read what the context layers hold without reading the canvas.
      element.dataset.roadFeatures = String(map.getSource('roads') ? map.querySourceFeatures('roads').length : 0);
      setState('idle');
    });
    map.on('dataloading', () => setState('loading'));
    const cleanup = props.onMap(map);
    return () => { cleanup?.(); hidePlaces(); map.remove(); };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <div class="map-view">
      {state === 'unavailable' ? <p class="notice" role="note">{t('mapUnavailable')}</p> : null}
      {tilesFailed ? <p class="notice" role="note">{t('mapTilesFailed')}</p> : null}
      <div ref={box} class="map-box" data-map-state={state} role="img" aria-label={props.label} hidden={state === 'unavailable'} />
    </div>
  );
}
