import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { previewGeofence } from './geofences-api.js';
import type { GeofenceBody, GeofencePreview } from './geofence-types.js';

/** Events listed at most: a fence around a depot can fire thousands in a week; the counts cover them all. */
const LISTED = 200;
const TYPES = ['entered', 'exited', 'crossed'] as const;

/**
 * "Try on last 7 days": the drawn fence, saved or not, sent to POST /geofences/preview; the answer
 * counts the events it would have fired and lists them. An answer belongs to the body it was
 * asked for: once the drawing changes it is no longer shown.
 */
export function FencePreview(props: { body: GeofenceBody | undefined; plates: ReadonlyMap<string, string> }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [answer, setAnswer] = useState<{ key: string; preview: GeofencePreview } | undefined>();
  const [error, setError] = useState<{ key: string; error: Error } | undefined>();
  const [busy, setBusy] = useState(false);
  const key = JSON.stringify(props.body ?? null);
  const run = async () => {
    if (!props.body || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      setAnswer({ key, preview: await previewGeofence(props.body, 7) });
    } catch (e) {
      setError({ key, error: e as Error });
    } finally {
      setBusy(false);
    }
  };
  const preview = answer?.key === key ? answer.preview : undefined;
  const counts = TYPES.map((type) => [type, preview?.events.filter((e) => e.type === `geofence.${type}`).length ?? 0] as const);
  return (
    <section class="fence-preview" aria-label={t('tryLast7Days')} aria-live="polite">
      <button type="button" disabled={!props.body || busy} onClick={run}>{busy ? t('previewing') : t('tryLast7Days')}</button>
      {error?.key === key ? <Problem error={error.error} /> : null}
      {preview ? (
        <div class="preview-answer" data-events={preview.events.length}>
          <h3>{t('fencePreviewTitle')}</h3>
          <ul class="counters">
            {counts.map(([type, n]) => <li key={type} data-type={type}><strong>{n}</strong> {t(`event_${type}`)}</li>)}
          </ul>
          <p class="muted">{t('previewSummary', { vehicles: i18n.number(preview.vehicles, 0), positions: i18n.number(preview.positions, 0) })}</p>
          {preview.truncated ? <p class="notice" role="note">{t('fencePreviewTruncated')}</p> : null}
          {preview.events_truncated ? <p class="notice" role="note">{t('fencePreviewEventsCut')}</p> : null}
          {preview.events.length === 0 ? <p>{t('fencePreviewNone')}</p> : (
            <table>
              <caption>{t('previewEvents')}{preview.events.length > LISTED ? ` · ${t('previewFirst', { shown: LISTED, total: preview.events.length })}` : ''}</caption>
              <thead><tr><th scope="col">{t('eventVehicle')}</th><th scope="col">{t('eventType')}</th><th scope="col">{t('eventTime')}</th></tr></thead>
              <tbody>
                {preview.events.slice(0, LISTED).map((event) => {
                  const vin = event.data.vin ?? '';
                  const type = event.type.replace('geofence.', '') as (typeof TYPES)[number];
                  const at = event.data.date_time;
                  return (
                    <tr key={event.id}>
                      <td>{props.plates.get(vin) ? `${props.plates.get(vin)} · ${vin}` : vin}</td>
                      <td>{TYPES.includes(type) ? t(`event_${type}`) : event.type}</td>
                      <td>{at ? i18n.time(at) : ''}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </div>
      ) : null}
    </section>
  );
}
