import { useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import { useI18n, type Locale } from '../i18n/i18n.js';
import { LanguageSwitch } from '../parts/language-switch.js';
import type { Session } from '../types.js';

export function SignIn(props: { ended: boolean; onSignedIn(s: Session): void; locale: Locale; onLocale(l: Locale): void }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      props.onSignedIn(await call<Session>('POST', '/console/session', {
        client_id: form.get('client_id'), client_secret: form.get('client_secret'), sign_secret: form.get('sign_secret') || undefined,
      }));
    } catch (e) {
      setError(e instanceof ApiError ? e.detail : String(e));
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
        <p class="help">{t('signInHelp')}</p>
        <label>{t('clientId')}<input name="client_id" autocomplete="username" required spellcheck={false} /></label>
        <label>{t('clientSecret')}<input name="client_secret" type="password" autocomplete="current-password" required /></label>
        <label>{t('signSecret')}<input name="sign_secret" type="password" autocomplete="off" aria-describedby="sign-secret-help" /></label>
        <p id="sign-secret-help" class="help">{t('signSecretHelp')}</p>
        {error ? <p class="problem" role="alert">{error}</p> : null}
        <button type="submit" disabled={busy}>{busy ? t('signingIn') : t('signIn')}</button>
      </form>
    </main>
  );
}
