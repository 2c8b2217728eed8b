import { useEffect, useState } from 'preact/hooks';
import { errors } from '@telematics/contract';
import { ApiError, call } from '../api.js';
import { useI18n, type Locale } from '../i18n/i18n.js';
import { LanguageSwitch } from '../parts/language-switch.js';
import type { Session } from '../types.js';

/**
 * A person's sign-in: e-mail and password; when the service answers that a second factor is
 * needed, the code field appears and the same form is sent again with it. Where single sign-on is
 * set up, a link to it too (a navigation: the provider's page, then back), and what went wrong
 * when it comes back with `#sso=<reason>`.
 */
const SSO_REASONS = ['expired', 'refused', 'provider', 'unverified', 'unknown-user', 'password-first', 'second-factor'] as const;
type SsoReason = (typeof SSO_REASONS)[number];

function ssoFailureOfLocation(): SsoReason | undefined {
  const reason = /^#sso=([a-z-]+)$/.exec(location.hash)?.[1];
  return SSO_REASONS.find((r) => r === reason);
}
export function SignIn(props: { ended: boolean; notice?: string | undefined; email?: string | undefined; onSignedIn(s: Session): void; locale: Locale; onLocale(l: Locale): void }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [askCode, setAskCode] = useState(false);
  const [sso, setSso] = useState<{ name: string; start: string } | null>(null);
  const [ssoFailure] = useState(ssoFailureOfLocation);
  useEffect(() => {
    if (ssoFailure !== undefined) history.replaceState(null, '', location.pathname);
    call<{ sso: { name: string; start: string } | null }>('GET', '/console/sign-in-options').then((options) => setSso(options.sso), () => setSso(null));
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      props.onSignedIn(await call<Session>('POST', '/console/session', {
        email: form.get('email'), password: form.get('password'), code: form.get('code') || undefined,
      }));
    } catch (e) {
      if (e instanceof ApiError && e.detail === errors.secondFactorRequired.text && !askCode) setAskCode(true);
      else setError(e instanceof ApiError ? e.detail : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in" data-ready="true">
      <h1>{t('appName')}</h1>
      <LanguageSwitch locale={props.locale} onLocale={props.onLocale} />
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">{t('signInTitle')}</h2>
        {props.ended ? <p role="status">{t('sessionEnded')}</p> : null}
        {props.notice ? <p role="status">{props.notice}</p> : null}
        <p class="help">{t('signInHelp')}</p>
        <label>{t('email')}<input name="email" type="email" autocomplete="username" required spellcheck={false} value={props.email} /></label>
        <label>{t('password')}<input name="password" type="password" autocomplete="current-password" required /></label>
        {askCode ? (
          <>
            <label>{t('code')}<input name="code" autocomplete="one-time-code" inputMode="numeric" required aria-describedby="code-help" /></label>
            <p id="code-help" class="help">{t('codeHelp')}</p>
          </>
        ) : null}
        {error ? <p class="problem" role="alert">{error}</p> : null}
        <button type="submit" disabled={busy}>{busy ? t('signingIn') : t('signIn')}</button>
      </form>
      {ssoFailure ? <p class="problem" role="alert">{t(`sso_${ssoFailure.replace(/-/g, '_')}` as 'sso_expired')}</p> : null}
      {sso ? <p class="sso"><a class="button" href={sso.start}>{t('ssoSignIn', { name: sso.name })}</a></p> : null}
    </main>
  );
}
