import { useState } from 'preact/hooks';
import { apiCall, ApiError } from '../api.js';
import { useI18n } from '../i18n/i18n.js';
import { Problem } from '../parts/problem.js';
import { useLoad } from '../parts/use-load.js';
import { useModule } from '../parts/use-module.js';
import type { DataRecord, Session, Trip } from '../types.js';
import { fieldLabel } from '../i18n/field-labels.js';

const TRIP_FIELDS = ['start_date_time', 'end_date_time', 'duration', 'distance', 'avg_speed', 'max_speed', 'avg_fuel_consumption'];

export function TripsScreen({ vin, session }: { vin: string; session: Session }) {
  const i18n = useI18n();
  const { t } = i18n;
  const trips = useLoad(async () => {
    try {
      const body = await apiCall<Record<string, Trip[]>>('POST', '/vehicle-trips', { vins: [vin], datapoints: TRIP_FIELDS });
      return [...(body[vin] ?? [])].reverse();
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && error.detail.startsWith('No data')) return [];
      throw error;
    }
  }, [vin]);
  const [chosen, setChosen] = useState<Trip | undefined>();
  const route = useLoad(async () => {
    if (!chosen) return undefined;
    const body = await apiCall<Record<string, DataRecord[]>>('POST', '/vehicle-data', {
      vins: [vin], datapoints: ['date_time', 'latitude', 'longitude', 'speed'],
      start_date: chosen.start_date_time.replace(' ', 'T'), end_date: chosen.end_date_time.replace(' ', 'T'),
    });
    return (body[vin] ?? []).filter((r) => typeof r.latitude === 'number' && typeof r.longitude === 'number');
  }, [chosen]);
  const [position, setPosition] = useState(0);
  const Track = useModule(() => import('../map/track-map.js'));

  if (trips.error) return <Problem error={trips.error} onRetry={trips.reload} />;
  if (!trips.data) return <p class="loading">{t('loading')}</p>;
  const num = (v: number | null, digits = 1) => (v === null ? '—' : i18n.number(v, digits));
  const label = (field: string) => fieldLabel(field, i18n.locale);
  const points = (route.data ?? []).map((r) => [r.longitude as number, r.latitude as number] as [number, number]);
  const at = route.data?.[position];
  return (
    <section class="trips" data-ready={route.loading && chosen ? undefined : 'true'} aria-labelledby="trips-title">
      <h1 id="trips-title">{t('trips')} · <a href={`/console/vehicles/${vin}`}>{vin}</a></h1>
      {trips.data.length === 0 ? <p role="status">{t('noTrips')}</p> : (
        <table>
          <caption>{t('tripsOfVehicle')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('start')}</th><th scope="col">{t('end')}</th><th scope="col">{t('duration')}</th><th scope="col" class="num">{label('distance')}</th>
              <th scope="col" class="num">{label('avg_speed')}</th><th scope="col" class="num">{label('max_speed')}</th><th scope="col" class="num">{label('avg_fuel_consumption')}</th><th scope="col">{t('route')}</th>
            </tr>
          </thead>
          <tbody>
            {trips.data.map((trip) => (
              <tr key={trip.start_date_time} class={trip === chosen ? 'chosen' : undefined}>
                <td>{i18n.time(trip.start_date_time)}</td><td>{i18n.time(trip.end_date_time)}</td><td>{trip.duration}</td>
                <td class="num">{num(trip.distance)}</td><td class="num">{num(trip.avg_speed)}</td><td class="num">{num(trip.max_speed)}</td>
                <td class="num">{num(trip.avg_fuel_consumption)}</td>
                <td><button type="button" onClick={() => { setPosition(0); setChosen(trip); }}>{t('open')}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {route.error ? <Problem error={route.error} /> : null}
      {chosen && route.data ? (
        <div class="replay">
          <label>{t('replay')}
            <input type="range" min={0} max={Math.max(0, route.data.length - 1)} value={position} onInput={(e) => setPosition(Number((e.currentTarget as HTMLInputElement).value))} />
          </label>
          {at ? <p role="status">{t('cursorAt', { time: i18n.time(String(at.date_time)), speed: `${num(typeof at.speed === 'number' ? at.speed : null)} km/h` })}</p> : null}
          <div class="map-pane">{Track ? <Track.TrackMap points={points} cursor={position} basemap={session.basemap} label={t('route')} /> : null}</div>
        </div>
      ) : null}
    </section>
  );
}
