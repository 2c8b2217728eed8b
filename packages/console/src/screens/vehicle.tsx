import { useMemo, useState } from 'preact/hooks';
import { apiCall, ApiError } from '../api.js';
import { useI18n, type Translator } from '../i18n/i18n.js';
import { Problem } from '../parts/problem.js';
import { useLoad } from '../parts/use-load.js';
import { useModule } from '../parts/use-module.js';
import type { DataRecord, Session, VehicleLatest } from '../types.js';
import type { ChartSeries } from '../charts/series-charts.js';
import { fieldLabel, fieldName } from '../i18n/field-labels.js';
import { fromZoneLocalInput, zoneLocalInput } from '../i18n/time-zone.js';
import { fieldValue } from '../parts/field-value.js';
import { useNow } from '../parts/use-now.js';
import { shownState } from '../parts/vehicle-status.js';
import { ShareLinksSection } from './share-links-section.js';

const HOUR = 3_600_000;
const CHART_FIELDS = ['speed', 'fuel_level', 'lv_battery_voltage', 'left_front_tire_pressure', 'right_front_tire_pressure', 'left_rear_tire_pressure', 'right_rear_tire_pressure'];
const TYRES = ['left_front_tire_pressure', 'right_front_tire_pressure', 'left_rear_tire_pressure', 'right_rear_tire_pressure'];
const TYRE_COLOURS = ['#1f5fa8', '#b35c00', '#1b7f3b', '#5b3fa0'];

/** "YYYY-MM-DDTHH:MM" at -03:00, as the service reads a date without an offset. */
function serviceLocalInput(epochMs: number): string {
  return new Date(epochMs - 3 * HOUR).toISOString().slice(0, 16);
}

export function VehicleScreen({ vin, session }: { vin: string; session: Session }) {
  const i18n = useI18n();
  const { t } = i18n;
  const latest = useLoad(async () => (await apiCall<VehicleLatest[]>('GET', '/vehicle-data/latest')).find((v) => v.vin === vin), [vin]);
  // The window's start is an instant; the input shows it in the zone the user reads times in.
  const [window, setWindow] = useState(() => ({ startMs: Math.floor((Date.now() - 24 * HOUR) / 60_000) * 60_000, hours: 24 }));
  const readable = latest.data?.record ? Object.keys(latest.data.record) : [];
  const fields = ['date_time', 'latitude', 'longitude', ...CHART_FIELDS].filter((f) => readable.includes(f));
  const data = useLoad(async () => {
    if (!fields.includes('date_time')) return undefined;
    const start = window.startMs;
    const end = Math.min(start + window.hours * HOUR, Date.now());
    try {
      const body = await apiCall<Record<string, DataRecord[]>>('POST', '/vehicle-data', {
        vins: [vin], datapoints: fields, start_date: `${serviceLocalInput(start)}:00`, end_date: `${serviceLocalInput(end)}:00`,
      });
      return body[vin] ?? [];
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && error.detail.startsWith('No data')) return [];
      throw error;
    }
  }, [vin, window, fields.join()]);
  const Charts = useModule(() => import('../charts/series-charts.js'));
  const Track = useModule(() => import('../map/track-map.js'));
  const [cursor, setCursor] = useState<number | undefined>();

  const columns = useMemo(() => toColumns(data.data ?? [], fields, i18n), [data.data, i18n]);
  const now = useNow();
  if (latest.error) return <Problem error={latest.error} onRetry={latest.reload} />;
  if (latest.loading && !latest.data) return <p class="loading">{t('loading')}</p>;
  const record = latest.data?.record ?? null;
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setWindow({ startMs: fromZoneLocalInput(String(form.get('start')), i18n.zone), hours: Number(form.get('hours')) });
  };
  const state = latest.data ? shownState(latest.data, session.offline_after_seconds * 1000, now) : undefined;
  return (
    <section class="vehicle" data-ready={data.loading ? undefined : 'true'} aria-labelledby="vehicle-title">
      <h1 id="vehicle-title">{t('vehicle')} {vin}</h1>
      <p><a href={`/console/vehicles/${vin}/trips`}>{t('trips')}</a> · <a href={`/console/commands?vin=${vin}`}>{t('commands')}</a></p>
      <LatestValues record={record} state={state} stale={state === 'offline' && latest.data?.state !== 'offline'} i18n={i18n} />
      <form class="window" onSubmit={submit} aria-describedby="window-help">
        <fieldset>
          <legend>{t('window')}</legend>
          <label>{t('windowStart')}<input type="datetime-local" name="start" value={zoneLocalInput(window.startMs, i18n.zone)} min={zoneLocalInput(now - 7 * 24 * HOUR, i18n.zone)} max={zoneLocalInput(now, i18n.zone)} required /></label>
          <label>{t('windowLength')}
            <select name="hours" value={String(window.hours)}>{[1, 6, 12, 24].map((h) => <option value={h} key={h}>{t('hours', { n: h })}</option>)}</select>
          </label>
          <button type="submit">{t('show')}</button>
          <p id="window-help" class="muted">{t('windowHelp')}</p>
        </fieldset>
      </form>
      {data.error ? <Problem error={data.error} onRetry={data.reload} /> : null}
      {data.data && data.data.length === 0 ? <p role="status">{t('noData')}</p> : null}
      {columns && columns.times.length > 0 ? (
        <div class="split">
          <div aria-label={t('charts')} role="region">
            {Charts ? <Charts.SeriesCharts times={columns.times} charts={columns.charts} onCursor={setCursor} /> : <p class="loading">{t('loading')}</p>}
            {cursor !== undefined && data.data?.[cursor] ? (
              <p role="status" class="muted">{t('cursorAt', { time: i18n.time(String(data.data[cursor]!.date_time)), speed: `${fieldValue('speed', data.data[cursor]!.speed, i18n)} km/h` })}</p>
            ) : null}
          </div>
          <div class="map-pane">
            {Track ? <Track.TrackMap points={columns.points} cursor={cursor === undefined ? undefined : columns.pointIndex[cursor]} basemap={session.basemap} label={t('track')} /> : null}
          </div>
        </div>
      ) : null}
      {session.scopes.includes('shares:manage') ? <ShareLinksSection vin={vin} /> : null}
    </section>
  );
}

function LatestValues({ record, state, stale, i18n }: { record: DataRecord | null; state: string | undefined; stale: boolean; i18n: Translator }) {
  const { t } = i18n;
  if (!record) return <p role="status">{t('noRecord')}</p>;
  const flags = record.flag ?? {};
  const names = Object.keys(record).filter((n) => !['vin', 'date_time', 'flag'].includes(n));
  return (
    <section aria-labelledby="latest-title" class="latest">
      <h2 id="latest-title">{t('latestValues')}</h2>
      <p>
        {state ? <span class={`badge state-${state}`} data-state={state}>{t(`state_${state}` as 'state_moving')}</span> : null}{' '}
        {record.date_time ? t(stale ? 'stateStale' : 'recordedAt', { time: i18n.time(record.date_time) }) : null}
      </p>
      <dl>
        {names.map((name) => (
          <div key={name} class={flags[name] ? 'flagged' : undefined}>
            <dt data-field={name}>{fieldLabel(name, i18n.locale)}</dt>
            <dd>
              {fieldValue(name, record[name], i18n)}
              {flags[name] ? <small> ({t('corrected', { value: JSON.stringify(flags[name]!.value), reason: flags[name]!.flag })})</small> : null}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function toColumns(rows: readonly DataRecord[], fields: readonly string[], i18n: Translator) {
  const name = (field: string) => fieldName(field, i18n.locale);
  if (rows.length === 0) return undefined;
  const times = rows.map((r) => Date.parse(`${String(r.date_time).replace(' ', 'T')}-03:00`) / 1000);
  const column = (name: string) => rows.map((r) => (typeof r[name] === 'number' ? (r[name] as number) : null));
  // A datapoint the vehicle never sends (fuel of an electric car) draws no empty chart.
  const has = (name: string) => fields.includes(name) && rows.some((r) => typeof r[name] === 'number');
  const charts: ChartSeries[] = [];
  if (has('speed')) charts.push({ label: name('speed'), unit: 'km/h', columns: [{ label: name('speed'), values: column('speed'), colour: '#1f5fa8' }] });
  if (has('fuel_level')) charts.push({ label: name('fuel_level'), unit: '%', columns: [{ label: name('fuel_level'), values: column('fuel_level'), colour: '#b35c00' }] });
  if (has('lv_battery_voltage')) charts.push({ label: name('lv_battery_voltage'), unit: 'V', columns: [{ label: name('lv_battery_voltage'), values: column('lv_battery_voltage'), colour: '#1b7f3b' }] });
  const tyres = TYRES.filter(has);
  if (tyres.length > 0) charts.push({ label: i18n.t('tyres'), unit: 'kPa', columns: tyres.map((f, i) => ({ label: name(f), values: column(f), colour: TYRE_COLOURS[i]! })) });
  // The track skips records without a fix; pointIndex maps a record to its point (or the last before it).
  const points: [number, number][] = [];
  const pointIndex: number[] = [];
  for (const r of rows) {
    if (typeof r.latitude === 'number' && typeof r.longitude === 'number') points.push([r.longitude, r.latitude]);
    pointIndex.push(Math.max(0, points.length - 1));
  }
  return { times, charts, points, pointIndex };
}
