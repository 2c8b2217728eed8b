/** What an unsaved rule would have fired over the last 7 days: the count, then the events newest first. */
import { useI18n } from '../../i18n/i18n.js';
import type { RulePreview } from './alert-types.js';
import { kindLabel, valuesOf } from './alert-values.js';

/** Rows listed: examples, not the record; a week of a loose rule over a fleet is thousands of events, and the count says how many. */
const LISTED = 25;

export function RulePreviewResult(props: { preview: RulePreview; plates: ReadonlyMap<string, string> }) {
  const i18n = useI18n();
  const { t } = i18n;
  const { preview } = props;
  // The service answers oldest first, as the feed would deliver them.
  const events = [...preview.events].reverse();
  const listed = events.slice(0, LISTED);
  return (
    <section class="preview" aria-labelledby="preview-title" data-preview-count={events.length}>
      <h2 id="preview-title">{t('previewTitle')}</h2>
      <p role="status">
        {events.length === 0 ? t('previewNone') : t('previewCount', { n: i18n.number(events.length, 0), vehicles: i18n.number(preview.vehicles, 0), records: i18n.number(preview.records, 0) })}
      </p>
      {preview.truncated ? <p class="notice" role="note">{t('previewTruncated')}</p> : null}
      {preview.events_truncated ? <p class="notice" role="note">{t('previewEventsCut')}</p> : null}
      {events.length > listed.length ? <p class="muted">{t('previewShown', { shown: i18n.number(listed.length, 0) })}</p> : null}
      {events.length === 0 ? null : (
        <table>
          <caption>{t('previewTable')}</caption>
          <thead>
            <tr><th scope="col">{t('alertTime')}</th><th scope="col">{t('alertKind')}</th><th scope="col">{t('plate')}</th><th scope="col">{t('vin')}</th><th scope="col">{t('alertValues')}</th></tr>
          </thead>
          <tbody>
            {listed.map((e) => {
              const vin = String(e.data['vin'] ?? '');
              return (
                <tr key={e.id} data-preview-event={e.type}>
                  <td><time dateTime={e.timestamp}>{i18n.time(e.timestamp.slice(0, 19))}</time></td>
                  <td>{kindLabel(t, e.type)}</td><td>{props.plates.get(vin) ?? '—'}</td><td>{vin}</td><td>{valuesOf(i18n, e)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
