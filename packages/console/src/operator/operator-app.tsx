/**
 * The operator console (/operator/): who is signed in is asked on load (204: nobody); any call
 * that finds the session gone brings the sign-in back. The company chosen on Vehicles is kept for
 * Applications and back: both screens are one company's entries.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, onSignedOut } from '../api.js';
import { I18n, initialLocale, rememberLocale, translator, type Locale } from '../i18n/i18n.js';
import { OPERATOR_SESSION, type OperatorSession } from './operator-api.js';
import { OperatorLayout } from './operator-layout.js';
import { OperatorSignIn } from './operator-sign-in.js';
import { OperatorScreen } from './operator-screen.js';
import { useHashScreen } from './use-hash-screen.js';

export function OperatorApp() {
  const [locale, setLocale] = useState<Locale>(initialLocale);
  const i18n = useMemo(() => translator(locale), [locale]);
  // undefined: not known yet; null: signed out.
  const [session, setSession] = useState<OperatorSession | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  const [company, setCompany] = useState<string | undefined>();
  const screen = useHashScreen();

  useEffect(() => { rememberLocale(locale); }, [locale]);
  useEffect(() => {
    call<OperatorSession | null>('GET', OPERATOR_SESSION).then(setSession, () => setSession(null));
    return onSignedOut(() => { setSession(null); setEnded(true); });
  }, []);
  useEffect(() => { if (!session) document.title = i18n.t('opAppName'); }, [session, i18n]);

  let content;
  if (session === undefined) content = <p class="loading">{i18n.t('loading')}</p>;
  else if (session === null) {
    content = <OperatorSignIn ended={ended} onSignedIn={(s) => { setEnded(false); setSession(s); }} locale={locale} onLocale={setLocale} />;
  } else {
    content = (
      <OperatorLayout session={session} screen={screen} locale={locale} onLocale={setLocale} onSignedOut={() => setSession(null)}>
        <OperatorScreen screen={screen} choices={session.choices} company={company} onCompany={setCompany} />
      </OperatorLayout>
    );
  }
  return <I18n.Provider value={i18n}>{content}</I18n.Provider>;
}
