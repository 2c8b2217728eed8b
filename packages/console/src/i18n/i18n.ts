/**
 * Two languages without a library: English is bundled as the source of keys, Portuguese beside it
 * (both small). The choice is a preference, not a secret, so it is remembered in localStorage.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { en, type MessageKey } from './en.js';
import { ptBR } from './pt-BR.js';

export type Locale = 'en' | 'pt-BR';
export const LOCALES: readonly Locale[] = ['en', 'pt-BR'];
const TEXTS: Record<Locale, Record<MessageKey, string>> = { en, 'pt-BR': ptBR };
const STORAGE_KEY = 'telematics-console-locale';

export function initialLocale(): Locale {
  const stored = safeStorage()?.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'pt-BR') return stored;
  return navigator.language.toLowerCase().startsWith('pt') ? 'pt-BR' : 'en';
}

export function rememberLocale(locale: Locale): void {
  safeStorage()?.setItem(STORAGE_KEY, locale);
  document.documentElement.lang = locale;
}

function safeStorage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export interface Translator {
  readonly locale: Locale;
  t(key: MessageKey, params?: Record<string, string | number>): string;
  number(value: number, digits?: number): string;
  /** A service instant ("YYYY-MM-DD HH:MM:SS" at -03:00) as the user reads dates. */
  time(serviceTime: string): string;
}

export function translator(locale: Locale): Translator {
  const texts = TEXTS[locale];
  const numbers = new Map<number, Intl.NumberFormat>();
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium', timeZone: 'America/Sao_Paulo' });
  return {
    locale,
    t: (key, params = {}) => texts[key].replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`)),
    number(value, digits = 1) {
      let format = numbers.get(digits);
      if (!format) numbers.set(digits, (format = new Intl.NumberFormat(locale, { maximumFractionDigits: digits })));
      return format.format(value);
    },
    time: (serviceTime) => dates.format(serviceInstant(serviceTime)),
  };
}

/** The service writes instants at -03:00 without an offset. */
export function serviceInstant(serviceTime: string): Date {
  return new Date(`${serviceTime.replace(' ', 'T')}-03:00`);
}

export const I18n = createContext<Translator>(translator('en'));
export const useI18n = (): Translator => useContext(I18n);
