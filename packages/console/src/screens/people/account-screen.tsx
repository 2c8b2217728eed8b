/**
 * Your account: who you are, and your second factor. Setting it up shows the secret (and the
 * `otpauth://` link an authenticator app opens) once; the first code confirms it and shows ten
 * recovery codes, once. Removing it takes a current code.
 */
import { useState } from 'preact/hooks';
import { apiCall } from '../../api.js';
import { useI18n } from '../../i18n/i18n.js';
import type { MessageKey } from '../../i18n/en.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';
import { useAction } from '../../parts/use-action.js';

interface Me { readonly email: string; readonly role: string; readonly second_factor: boolean }

export function AccountScreen() {
  const { t } = useI18n();
  const me = useLoad(() => apiCall<Me>('GET', '/me'), []);
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauth_uri: string } | undefined>();
  const [recovery, setRecovery] = useState<string[] | undefined>();
  const { run: act, problem } = useAction(me.reload);
  const codeOf = (event: Event) => {
    event.preventDefault();
    return new FormData(event.currentTarget as HTMLFormElement).get('code');
  };

  if (me.error && !me.data) return <Problem error={me.error} onRetry={me.reload} />;
  if (!me.data) return <p class="loading">{t('loading')}</p>;
  return (
    <section class="account" data-ready={me.loading ? undefined : 'true'} aria-labelledby="account-title">
      <h1 id="account-title">{t('account')}</h1>
      <p>{me.data.email} · {t(`role_${me.data.role}` as MessageKey)}</p>
      {problem ? <p class="problem" role="alert">{problem}</p> : null}
      <h2>{t('secondFactor')}</h2>
      {recovery ? (
        <div class="notice" role="status">
          <p>{t('recoveryCodesOnce')}</p>
          <ul class="recovery-codes">{recovery.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
        </div>
      ) : null}
      {me.data.second_factor ? (
        <form onSubmit={(e) => { const code = codeOf(e); return act(async () => { await apiCall('DELETE', '/me/totp', { code }); setRecovery(undefined); }); }}>
          <p>{t('twoFactorOn')}</p>
          <label>{t('code')}<input name="code" autocomplete="one-time-code" inputMode="numeric" required /></label>
          <button type="submit" class="danger">{t('removeTwoFactor')}</button>
        </form>
      ) : enrolment ? (
        <form onSubmit={(e) => { const code = codeOf(e); return act(async () => { setRecovery((await apiCall<{ recovery_codes: string[] }>('POST', '/me/totp/confirm', { code })).recovery_codes); setEnrolment(undefined); }); }}>
          <p>{t('twoFactorScan')}</p>
          <p><a href={enrolment.otpauth_uri}>{t('twoFactorOpenApp')}</a></p>
          <p>{t('twoFactorSecret')} <output class="secret">{enrolment.secret}</output></p>
          <label>{t('code')}<input name="code" autocomplete="one-time-code" inputMode="numeric" required /></label>
          <button type="submit">{t('confirmTwoFactor')}</button>
        </form>
      ) : (
        <>
          <p>{t('twoFactorOff')}</p>
          <button type="button" onClick={() => act(async () => { setEnrolment(await apiCall('POST', '/me/totp')); })}>{t('setUpTwoFactor')}</button>
        </>
      )}
    </section>
  );
}
