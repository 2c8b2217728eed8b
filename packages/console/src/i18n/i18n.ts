/**
 * Two languages without a library: English is bundled as the source of keys, Portuguese beside it
 * (both small). The choice is a preference, not a secret, so it is remembered in localStorage.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { en, type MessageKey } from './en.js';
import { ptBR } from './pt-BR.js';
import { SERVICE_ZONE } from './time-zone.js';

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
  /** A latitude or longitude: always 5 decimals (about a metre). */
  coordinate(value: number): string;
  /** The IANA zone every time is shown in (the user's choice; the API's formats stay -03:00). */
  readonly zone: string;
  /** A service instant ("YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS" at -03:00) as the user reads dates, in `zone`. */
  time(serviceTime: string): string;
  /** As `time`, but only the time of day when that is today in `zone` (a narrow column). */
  recent(serviceTime: string, nowMs: number): string;
  /** Hours and minutes of an instant in `zone`, for chart axes. */
  clock(epochMs: number): string;
}

export function translator(locale: Locale, zone: string = SERVICE_ZONE): Translator {
  const texts = TEXTS[locale];
  const numbers = new Map<number, Intl.NumberFormat>();
  const coordinates = new Intl.NumberFormat(locale, { minimumFractionDigits: 5, maximumFractionDigits: 5 });
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium', timeZone: zone });
  const clock = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone: zone });
  const timeOfDay = new Intl.DateTimeFormat(locale, { timeStyle: 'medium', timeZone: zone });
  const day = new Intl.DateTimeFormat('en-CA', { dateStyle: 'short', timeZone: zone });
  return {
    locale,
    zone,
    t: (key, params = {}) => texts[key].replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`)),
    number(value, digits = 1) {
      let format = numbers.get(digits);
      if (!format) numbers.set(digits, (format = new Intl.NumberFormat(locale, { maximumFractionDigits: digits })));
      return format.format(value);
    },
    coordinate: (value) => coordinates.format(value),
    time: (serviceTime) => dates.format(serviceInstant(serviceTime)),
    recent(serviceTime, nowMs) {
      const at = serviceInstant(serviceTime);
      return (day.format(at) === day.format(nowMs) ? timeOfDay : dates).format(at);
    },
    clock: (epochMs) => clock.format(epochMs),
  };
}

/** The service writes instants at -03:00 without an offset. */
export function serviceInstant(serviceTime: string): Date {
  return new Date(`${serviceTime.replace(' ', 'T')}-03:00`);
}

export const I18n = createContext<Translator>(translator('en'));
export const useI18n = (): Translator => useContext(I18n);
