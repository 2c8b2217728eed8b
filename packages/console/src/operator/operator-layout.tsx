import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { call } from '../api.js';
import { useI18n, type Locale } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/en.js';
import { LanguageSwitch } from '../parts/language-switch.js';
import { OPERATOR_SESSION, type OperatorSession } from './operator-api.js';
import { SCREENS, type Screen } from './use-hash-screen.js';

export const SCREEN_TITLES: Readonly<Record<Screen, MessageKey>> = {
  companies: 'opCompanies', plans: 'opPlans', oems: 'opOems', vehicles: 'opVehicles', applications: 'opApplications',
};

/**
 * The header and the screen's heading. The heading is the layout's, shown before the screen has
 * loaded, so that after a move from the navigation focus lands on it and a screen reader reads
 * where it now is (the page itself does not reload).
 */
export function OperatorLayout(props: { session: OperatorSession; screen: Screen; locale: Locale; onLocale(l: Locale): void; onSignedOut(): void; children: ComponentChildren }) {
  const { t } = useI18n();
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  useEffect(() => { document.title = `${t(SCREEN_TITLES[props.screen])} · ${t('opAppName')}`; }, [props.screen, t]);
  useEffect(() => {
    if (moved.current) heading.current?.focus();
    moved.current = true;
  }, [props.screen]);
  const signOut = async () => {
    await call('DELETE', OPERATOR_SESSION).catch(() => undefined);
    props.onSignedOut();
  };
  return (
    <>
      <header class="top operator-top">
        <a class="brand" href="#companies">{t('opAppName')}</a>
        <nav aria-label={t('opAppName')}>
          {SCREENS.map((s) => <a key={s} href={`#${s}`} aria-current={s === props.screen ? 'page' : undefined}>{t(SCREEN_TITLES[s])}</a>)}
        </nav>
        <span class="who">{t('opSignedInAs', { email: props.session.operator.email })}</span>
        <LanguageSwitch locale={props.locale} onLocale={props.onLocale} />
        <button type="button" onClick={signOut}>{t('signOut')}</button>
      </header>
      <main id="main" class={`operator ${props.screen}`}>
        <h1 ref={heading} tabIndex={-1}>{t(SCREEN_TITLES[props.screen])}</h1>
        {props.children}
      </main>
    </>
  );
}
