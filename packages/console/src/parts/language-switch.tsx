import { useI18n, LOCALES, type Locale } from '../i18n/i18n.js';

const NAMES: Record<Locale, string> = { en: 'English', 'pt-BR': 'Português (Brasil)' };

export function LanguageSwitch(props: { locale: Locale; onLocale(l: Locale): void }) {
  const { t } = useI18n();
  return (
    <label class="language">
      {t('language')}{' '}
      <select value={props.locale} onChange={(e) => props.onLocale((e.currentTarget as HTMLSelectElement).value as Locale)}>
        {LOCALES.map((l) => <option value={l} lang={l} key={l}>{NAMES[l]}</option>)}
      </select>
    </label>
  );
}
