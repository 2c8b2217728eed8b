/**
 * How an alert reads in a table: its kind in the page's language, the rule or fence that fired,
 * and the values that triggered it with their units (km/h, %, V, a silence's length). Fields the
 * company may not read are absent from the event (the service leaves them out): shown as "—".
 */
import type { MessageKey } from '../../i18n/en.js';
import type { Translator } from '../../i18n/i18n.js';
import type { AlertEvent } from './alert-types.js';

export const kindLabel = (t: Translator['t'], type: string): string => t(`kind_${type.replace('.', '_')}` as MessageKey);

/** The rule's name for an alert, the fence's for a geofence event. */
export function subjectOf(event: AlertEvent): string {
  const { rule_name: rule, geofence_name: fence } = event.data;
  return typeof rule === 'string' ? rule : typeof fence === 'string' ? fence : '—';
}

/** Seconds as "45 s", "6 min", "2 h 05 min": alerts last from seconds to days. */
export function spanOf(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

export function valuesOf(i18n: Translator, event: AlertEvent): string {
  const { t } = i18n;
  const d = event.data;
  const num = (field: string, digits = 1) => (typeof d[field] === 'number' ? i18n.number(d[field], digits) : '—');
  const span = (field: string) => (typeof d[field] === 'number' ? spanOf(d[field]) : '—');
  switch (event.type) {
    case 'alert.overspeed': return t('valuesOverspeed', { speed: num('speed'), limit: num('limit') });
    case 'alert.idling': return t('valuesIdling', { duration: span('duration_s') });
    case 'alert.no_data': return t('valuesNoData', { duration: span('silent_s') });
    case 'alert.low_fuel': return t('valuesLowFuel', { fuel: num('fuel_level'), threshold: num('threshold') });
    case 'alert.low_battery': return t('valuesLowBattery', { voltage: num('lv_battery_voltage', 2), threshold: num('threshold', 2) });
    case 'alert.after_hours': {
      const ignition = d['ignition'] === true ? t('ignitionOn') : d['ignition'] === false ? t('ignitionOff') : t('ignitionUnknown');
      return t('valuesAfterHours', { speed: num('speed'), ignition });
    }
    default: return d['late'] === true ? t('valuesLate') : '';
  }
}

/** Where the alert happened, when the event carries a position (never for no_data). */
export function positionOf(event: AlertEvent): [number, number] | undefined {
  const { latitude, longitude } = event.data;
  return typeof latitude === 'number' && typeof longitude === 'number' ? [longitude, latitude] : undefined;
}
