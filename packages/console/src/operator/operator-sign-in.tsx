/**
 * An operator's sign-in: e-mail and password only. Operators are set up on the command line
 * (`telematics admin operator add`), apart from every company's people and their single sign-on.
 */
import { useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import { useI18n, type Locale } from '../i18n/i18n.js';
import { LanguageSwitch } from '../parts/language-switch.js';
import { OPERATOR_SESSION, type OperatorSession } from './operator-api.js';

export function OperatorSignIn(props: { ended: boolean; onSignedIn(s: OperatorSession): void; locale: Locale; onLocale(l: Locale): void }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      props.onSignedIn(await call<OperatorSession>('POST', OPERATOR_SESSION, { email: form.get('email'), password: form.get('password') }));
    } catch (e) {
      setError(e instanceof ApiError ? e.detail : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in operator-sign-in" data-ready="true">
      <h1>{t('opAppName')}</h1>
      <LanguageSwitch locale={props.locale} onLocale={props.onLocale} />
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">{t('signInTitle')}</h2>
        {props.ended ? <p role="status">{t('opSessionEnded')}</p> : null}
        <p class="help">{t('opSignInHelp')}</p>
        <label>{t('email')}<input name="email" type="email" autocomplete="username" required spellcheck={false} /></label>
        <label>{t('password')}<input name="password" type="password" autocomplete="current-password" required /></label>
        {error ? <p class="problem" role="alert">{error}</p> : null}
        <button type="submit" disabled={busy}>{busy ? t('signingIn') : t('signIn')}</button>
      </form>
      <p><a href="/console/">{t('opCompanyConsole')}</a></p>
    </main>
  );
}
