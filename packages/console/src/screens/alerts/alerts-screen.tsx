/**
 * Alerts: the company's alert and geofence events, newest first, with the values that fired
 * them; "Older" reads the next page back, a kind filter narrows the list, and new events come on
 * top every 10 s. A chosen row shows its position on a map (no_data has none: the screen says so).
 */
import { useMemo, useState } from 'preact/hooks';
import { apiCall } from '../../api.js';
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';
import { useModule } from '../../parts/use-module.js';
import type { Session, Vehicle } from '../../types.js';
import { ALERT_EVENT_KINDS, type AlertEvent } from './alert-types.js';
import { kindLabel, positionOf, subjectOf, valuesOf } from './alert-values.js';
import { useAlertHistory } from './use-alert-history.js';
import './alerts.css';

export function AlertsScreen({ session }: { session: Session }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [kind, setKind] = useState('');
  const history = useAlertHistory(kind);
  const vehicles = useLoad(() => apiCall<Vehicle[]>('GET', '/vehicle'), []);
  const plates = useMemo(() => new Map((vehicles.data ?? []).map((v) => [v.vin, v.plate])), [vehicles.data]);
  const [chosenId, setChosenId] = useState<string | undefined>(undefined);
  const PointMap = useModule(() => import('../../map/alert-point-map.js'));

  if (history.error && !history.events) return <Problem error={history.error} onRetry={history.reload} />;
  if (!history.events || vehicles.loading) return <p class="loading">{t('loading')}</p>;
  const chosen = history.events.find((e) => e.id === chosenId);
  const position = chosen ? positionOf(chosen) : undefined;
  const vinOf = (e: AlertEvent) => String(e.data['vin'] ?? '');
  return (
    <section class="alerts" data-ready="true" data-kind={kind} aria-labelledby="alerts-title">
      <h1 id="alerts-title">{t('alerts')}</h1>
      <div class="alerts-bar">
        <label>{t('alertsKindFilter')}
          <select aria-label={t('alertsKindFilter')} value={kind} onChange={(e) => { setChosenId(undefined); setKind((e.currentTarget as HTMLSelectElement).value); }}>
            <option value="">{t('allKinds')}</option>
            {ALERT_EVENT_KINDS.map((k) => <option key={k} value={k}>{kindLabel(t, k)}</option>)}
          </select>
        </label>
        {history.refreshedAt ? <p class="muted" role="status">{t('alertsRefreshed', { time: i18n.clock(history.refreshedAt) })}</p> : null}
      </div>
      {history.error ? <Problem error={history.error} onRetry={history.reload} /> : null}
      <div class="split">
        <div class="list">
          {history.events.length === 0 ? <p role="status">{t('noAlerts')}</p> : (
            <table>
              <caption>{t('alertsTable')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('alertTime')}</th><th scope="col">{t('alertKind')}</th><th scope="col">{t('vehicle')}</th>
                  <th scope="col">{t('alertSubject')}</th><th scope="col">{t('alertValues')}</th><th scope="col"><span class="visually-hidden">{t('showOnMap')}</span></th>
                </tr>
              </thead>
              <tbody>
                {history.events.map((e) => (
                  <tr key={e.id} data-alert-id={e.id} data-alert-type={e.type} class={e.id === chosenId ? 'chosen' : undefined}>
                    <td><time dateTime={e.timestamp}>{i18n.time(e.timestamp.slice(0, 19))}</time></td>
                    <td>{kindLabel(t, e.type)}</td>
                    <td><a href={`/console/vehicles/${vinOf(e)}`}>{plates.get(vinOf(e)) || vinOf(e)}</a><br /><small class="muted">{vinOf(e)}</small></td>
                    <td>{subjectOf(e)}</td>
                    <td class="values">{valuesOf(i18n, e)}</td>
                    <td><button type="button" aria-pressed={e.id === chosenId} onClick={() => setChosenId(e.id)}>{t('showOnMap')}</button></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p class="buttons">
            {history.hasOlder
              ? <button type="button" class="older" disabled={history.busy} onClick={history.older}>{t('olderAlerts')}</button>
              : history.events.length > 0 ? <span class="muted">{t('noOlderAlerts')}</span> : null}
          </p>
        </div>
        <div class="map-pane" role="region" aria-label={t('alertMap')}>
          <p role="status" class="alert-where">
            {!chosen ? t('alertChooseRow')
              : position ? t('alertAt', { kind: kindLabel(t, chosen.type), latitude: i18n.coordinate(position[1]), longitude: i18n.coordinate(position[0]) })
                : chosen.type === 'alert.no_data' ? t('alertNoPosition') : t('alertPositionHidden')}
          </p>
          {PointMap ? <PointMap.AlertPointMap point={position} basemap={session.basemap} label={t('alertMap')} /> : <p class="loading">{t('loading')}</p>}
        </div>
      </div>
    </section>
  );
}
