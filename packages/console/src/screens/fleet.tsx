import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiCall } from '../api.js';
import { useI18n } from '../i18n/i18n.js';
import { Problem } from '../parts/problem.js';
import { useLoad } from '../parts/use-load.js';
import { useModule } from '../parts/use-module.js';
import { alertsOf, lowestTyre, numberOf, shownState, STATE_ORDER } from '../parts/vehicle-status.js';
import { useNow } from '../parts/use-now.js';
import { fieldLabel } from '../i18n/field-labels.js';
import type { Session, Vehicle, VehicleLatest } from '../types.js';

const REFRESH_MS = 30_000;

export interface FleetRow extends VehicleLatest {
  readonly plate: string;
  readonly model: string;
}

export function FleetScreen({ session }: { session: Session }) {
  const i18n = useI18n();
  const { t } = i18n;
  const fleet = useLoad(async () => {
    const [vehicles, latest] = await Promise.all([apiCall<Vehicle[]>('GET', '/vehicle'), apiCall<VehicleLatest[]>('GET', '/vehicle-data/latest')]);
    const byVin = new Map(vehicles.map((v) => [v.vin, v]));
    return latest.map((l): FleetRow => ({ ...l, plate: byVin.get(l.vin)?.plate ?? '', model: byVin.get(l.vin)?.model ?? '' }));
  }, []);
  useEffect(() => {
    const timer = setInterval(fleet.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [fleet.reload]);
  const [query, setQuery] = useState('');
  const now = useNow();
  const offlineAfterMs = session.offline_after_seconds * 1000;
  // The state as of now, not as of the answer: the map and counters read the same rows.
  const judged = useMemo(() => fleet.data?.map((r) => ({ ...r, state: shownState(r, offlineAfterMs, now) })), [fleet.data, now, offlineAfterMs]);
  const map = useModule(() => import('../map/fleet-map.js'));

  const rows = useMemo(() => {
    const all = judged ?? [];
    const needle = query.trim().toLowerCase();
    const shown = needle === '' ? all : all.filter((r) => [r.vin, r.plate, r.model].some((s) => s.toLowerCase().includes(needle)));
    // Most recently seen first; never seen last.
    return [...shown].sort((a, b) => (b.record?.date_time ?? '').localeCompare(a.record?.date_time ?? ''));
  }, [judged, query]);

  if (fleet.error && !fleet.data) return <Problem error={fleet.error} onRetry={fleet.reload} />;
  if (!judged) return <p class="loading">{t('loading')}</p>;
  const all = judged;
  const counts = STATE_ORDER.map((state) => [state, all.filter((r) => r.state === state).length] as const);
  const alerts = all.map((r) => alertsOf(r.record));
  return (
    <section class="fleet" data-ready="true" aria-labelledby="fleet-title">
      <h1 id="fleet-title">{t('fleet')}</h1>
      <ul class="counters" aria-label={t('state')}>
        {counts.map(([state, n]) => <li key={state} class={`state-${state}`}><strong>{n}</strong> {t(`state_${state}`)}</li>)}
        <li class="alert"><strong>{alerts.filter((a) => a.lowFuel).length}</strong> {t('lowFuel')}</li>
        <li class="alert"><strong>{alerts.filter((a) => a.lowBattery).length}</strong> {t('lowBattery')}</li>
        <li class="alert"><strong>{alerts.filter((a) => a.lowTyre).length}</strong> {t('lowTyre')}</li>
      </ul>
      <div class="split">
        <div class="list">
          <label class="search">{t('search')}<input type="search" value={query} onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} /></label>
          <p class="muted" role="status">{t('vehiclesShown', { shown: rows.length, total: all.length })}</p>
          <table>
            <caption>{t('fleetTable')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('vin')}</th><th scope="col">{t('plate')}</th><th scope="col">{t('model')}</th><th scope="col">{t('state')}</th>
                <th scope="col">{t('lastSeen')}</th>
                <th scope="col" class="num">{fieldLabel('speed', i18n.locale)}</th><th scope="col" class="num">{fieldLabel('fuel_level', i18n.locale)}</th>
                <th scope="col" class="num">{fieldLabel('lv_battery_voltage', i18n.locale)}</th><th scope="col" class="num">{fieldLabel('lowest_tire_pressure', i18n.locale)}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const speed = numberOf(r.record, 'speed');
                const fuel = numberOf(r.record, 'fuel_level');
                const battery = numberOf(r.record, 'lv_battery_voltage');
                const tyre = lowestTyre(r.record);
                const a = alertsOf(r.record);
                return (
                  <tr key={r.vin} data-vin={r.vin}>
                    <th scope="row"><a href={`/console/vehicles/${r.vin}`}>{r.vin}</a></th>
                    <td>{r.plate}</td><td>{r.model}</td>
                    <td><span class={`badge state-${r.state}`}>{t(`state_${r.state}`)}</span></td>
                    <td class="seen">{r.record?.date_time ? <time dateTime={`${r.record.date_time.replace(' ', 'T')}-03:00`} title={i18n.time(r.record.date_time)}>{i18n.recent(r.record.date_time, now)}</time> : t('never')}</td>
                    <td class="num">{speed === undefined ? '—' : i18n.number(speed)}</td>
                    <td class={`num${a.lowFuel ? ' warn' : ''}`}>{fuel === undefined ? '—' : i18n.number(fuel)}</td>
                    <td class={`num${a.lowBattery ? ' warn' : ''}`}>{battery === undefined ? '—' : i18n.number(battery)}</td>
                    <td class={`num${a.lowTyre ? ' warn' : ''}`}>{tyre === undefined ? '—' : i18n.number(tyre, 0)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <div class="map-pane" aria-label={t('mapOfFleet')} role="region">
          {map ? <map.FleetMap rows={rows} basemap={session.basemap} /> : <p class="loading">{t('loading')}</p>}
        </div>
      </div>
    </section>
  );
}
