import { en, type MessageKey } from '../../i18n/en.js';
import type { Translator } from '../../i18n/i18n.js';

/**
 * A value of one of the service's vocabularies (`status`, `ownership`, `sim`, a protocol's id
 * rule), in the reader's language where the page knows it; a value the service added since is
 * shown as the service gives it (`served`, the value itself unless said).
 */
export function choiceLabel(t: Translator['t'], group: string, value: string, served: string = value): string {
  const key = `op_${group}_${value}`;
  return Object.hasOwn(en, key) ? t(key as MessageKey) : served;
}
