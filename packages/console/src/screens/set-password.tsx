import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import { useI18n, type Locale } from '../i18n/i18n.js';
import { LanguageSwitch } from '../parts/language-switch.js';

/**
 * An invitation or reset link (`/console/#password=<token>`): the token stays in the fragment,
 * which the browser never sends; the page posts it in a body. Once set, sign-in follows with the
 * e-mail filled in.
 */
export function SetPassword(props: { token: string; onDone(email: string | undefined): void; locale: Locale; onLocale(l: Locale): void }) {
  const { t } = useI18n();
  const [email, setEmail] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    call<{ email: string }>('POST', '/console/password/check', { token: props.token })
      .then((link) => setEmail(link.email), (e) => setError(e instanceof ApiError ? e.detail : String(e)));
  }, [props.token]);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      const done = await call<{ email: string }>('POST', '/console/password', { token: props.token, password: form.get('password') });
      props.onDone(done.email);
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
      <form onSubmit={submit} aria-labelledby="set-password-title">
        <h2 id="set-password-title">{t('setPasswordTitle')}</h2>
        {email ? <p>{t('setPasswordFor', { email })}</p> : null}
        <input type="email" name="email" autocomplete="username" value={email ?? ''} hidden readOnly />
        <label>{t('newPassword')}<input name="password" type="password" autocomplete="new-password" minLength={12} maxLength={256} required /></label>
        {error ? <p class="problem" role="alert">{error}</p> : null}
        <button type="submit" disabled={busy || email === undefined}>{t('setPassword')}</button>
      </form>
    </main>
  );
}
