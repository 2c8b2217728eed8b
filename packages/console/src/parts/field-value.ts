import { digitsOf } from '../i18n/field-labels.js';
import type { Translator } from '../i18n/i18n.js';

/** A field's value as the screen writes it; its unit goes in the label beside it. */
export function fieldValue(name: string, value: unknown, i18n: Translator): string {
  if (typeof value === 'number') return name === 'latitude' || name === 'longitude' ? i18n.coordinate(value) : i18n.number(value, digitsOf(name));
  if (value === null || value === undefined) return '—';
  if (name === 'date_time' && typeof value === 'string') return i18n.time(value);
  return String(value);
}
