import { useI18n } from '../i18n/i18n.js';
import { offsetLabel, ZONE_CHOICES, zoneOf, type ZoneChoice } from '../i18n/time-zone.js';

/** Names the zone every time on screen is in, and lets the reader pick another. */
export function ZoneSwitch(props: { zone: ZoneChoice; onZone(z: ZoneChoice): void }) {
  const { t } = useI18n();
  const now = Date.now();
  const name = (choice: ZoneChoice) => (choice === 'utc' ? t('zone_utc') : t(`zone_${choice}`, { zone: zoneOf(choice), offset: offsetLabel(zoneOf(choice), now) }));
  return (
    <label class="zone">
      {t('timesIn')}{' '}
      <select value={props.zone} data-zone={zoneOf(props.zone)} onChange={(e) => props.onZone((e.currentTarget as HTMLSelectElement).value as ZoneChoice)}>
        {ZONE_CHOICES.map((z) => <option value={z} key={z}>{name(z)}</option>)}
      </select>
    </label>
  );
}
