import { useI18n } from '../../i18n/i18n.js';
import type { Session } from '../../types.js';

export function GeofencesScreen(_props: { session: Session }) {
  const { t } = useI18n();
  return <h1>{t('geofences')}</h1>;
}
