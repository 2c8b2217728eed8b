import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { call } from '../api.js';
import { useI18n, type Locale } from '../i18n/i18n.js';
import { sessionMay, type Session } from '../types.js';
import { LanguageSwitch } from './language-switch.js';
import { ZoneSwitch } from './zone-switch.js';
import type { ZoneChoice } from '../i18n/time-zone.js';

/** The person signed in, by e-mail and role. */
const who = (session: Session, t: ReturnType<typeof useI18n>['t']) => `${session.user.email} · ${t(`role_${session.user.role}`)}`;

export function Layout(props: { session: Session; locale: Locale; onLocale(l: Locale): void; zone: ZoneChoice; onZone(z: ZoneChoice): void; onSignedOut(): void; children: ComponentChildren }) {
  const { t } = useI18n();
  const { path } = useLocation();
  const signOut = async () => {
    await call('DELETE', '/console/session').catch(() => undefined);
    props.onSignedOut();
  };
  const current = (href: string, exact = false) => ((exact ? path === href : path.startsWith(href)) ? 'page' : undefined);
  return (
    <>
      <header class="top">
        <a class="brand" href="/console/">{t('appName')}</a>
        <nav aria-label={t('appName')}>
          <a href="/console/" aria-current={current('/console/', true)}>{t('fleet')}</a>
          <a href="/console/commands" aria-current={current('/console/commands')}>{t('commands')}</a>
          <a href="/console/geofences" aria-current={current('/console/geofences')}>{t('geofences')}</a>
          <a href="/console/alerts" aria-current={current('/console/alerts', true)}>{t('alerts')}</a>
          <a href="/console/alert-rules" aria-current={current('/console/alert-rules')}>{t('alertRules')}</a>
          {sessionMay(props.session, 'users:manage') ? <a href="/console/people" aria-current={current('/console/people')}>{t('people')}</a> : null}
          {sessionMay(props.session, 'audit:read') ? <a href="/console/audit" aria-current={current('/console/audit')}>{t('audit')}</a> : null}
          <a href="/console/account" aria-current={current('/console/account')}>{t('account')}</a>
        </nav>
        <span class="who">{t('signedInAs', { who: who(props.session, t), company: props.session.company })}</span>
        <LanguageSwitch locale={props.locale} onLocale={props.onLocale} />
        <ZoneSwitch zone={props.zone} onZone={props.onZone} />
        <button type="button" onClick={signOut}>{t('signOut')}</button>
      </header>
      <main id="main">{props.children}</main>
      <footer class="bottom"><a href="/docs">{t('apiDocs')}</a></footer>
    </>
  );
}
