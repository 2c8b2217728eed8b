import { useI18n } from '../../i18n/i18n.js';
import { fenceSize, serviceTime } from './fence-size.js';
import { kindOf, type Geofence } from './geofence-types.js';

/** The company's fences, by name; a name is a button that shows its fence on the map. */
export function FenceTable(props: { fences: readonly Geofence[]; selectedId: string | undefined; onSelect(id: string): void }) {
  const i18n = useI18n();
  const { t } = i18n;
  if (props.fences.length === 0) return <p role="status">{t('noGeofences')}</p>;
  return (
    <table class="fence-table">
      <caption>{t('geofencesTable')} · {t('geofencesCount', { n: props.fences.length })}</caption>
      <thead>
        <tr><th scope="col">{t('fenceName')}</th><th scope="col">{t('fenceKind')}</th><th scope="col">{t('fenceSize')}</th><th scope="col">{t('created')}</th></tr>
      </thead>
      <tbody>
        {props.fences.map((fence) => {
          const chosen = fence.id === props.selectedId;
          return (
            <tr key={fence.id} data-fence-id={fence.id} class={chosen ? 'chosen' : undefined}>
              <th scope="row">
                <button type="button" class="link" aria-pressed={chosen} title={t('showFence', { name: fence.name })} onClick={() => props.onSelect(fence.id)}>{fence.name}</button>
              </th>
              <td>{t(`kind_${kindOf(fence.geometry)}`)}</td>
              <td>{fenceSize(fence, i18n)}</td>
              <td>{i18n.time(serviceTime(fence.created))}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
