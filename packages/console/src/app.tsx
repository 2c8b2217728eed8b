import { useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider, Route, Router } from 'preact-iso';
import { call, onSignedOut } from './api.js';
import { I18n, initialLocale, rememberLocale, translator, type Locale } from './i18n/i18n.js';
import { initialZone, rememberZone, zoneOf, type ZoneChoice } from './i18n/time-zone.js';
import { Layout } from './parts/layout.js';
import { SignIn } from './screens/sign-in.js';
import { SetPassword } from './screens/set-password.js';
import { FleetScreen } from './screens/fleet.js';
import { VehicleScreen } from './screens/vehicle.js';
import { TripsScreen } from './screens/trips.js';
import { CommandsScreen } from './screens/commands.js';
import { GeofencesScreen } from './screens/geofences/geofences-screen.js';
import { AlertsScreen } from './screens/alerts/alerts-screen.js';
import { AlertRulesScreen } from './screens/alerts/alert-rules-screen.js';
import { PeopleScreen } from './screens/people/people-screen.js';
import { AccountScreen } from './screens/people/account-screen.js';
import { AuditScreen } from './screens/audit/audit-screen.js';
import type { Session } from './types.js';

export function App() {
  const [locale, setLocale] = useState<Locale>(initialLocale);
  const [zone, setZone] = useState<ZoneChoice>(initialZone);
  const i18n = useMemo(() => translator(locale, zoneOf(zone)), [locale, zone]);
  // undefined: not known yet; null: signed out.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  // An invitation or reset link: its token is in the fragment, never sent to the server by the browser.
  const [passwordToken, setPasswordToken] = useState<string | undefined>(() => /^#password=([A-Za-z0-9_-]{43})$/.exec(location.hash)?.[1]);
  const [setPasswordFor, setSetPasswordFor] = useState<string | undefined>();

  useEffect(() => { rememberLocale(locale); }, [locale]);
  useEffect(() => { rememberZone(zone); }, [zone]);
  useEffect(() => {
    call<Session>('GET', '/console/session').then(setSession, () => setSession(null));
    return onSignedOut(() => { setSession(null); setEnded(true); });
  }, []);

  let content;
  const passwordDone = (email: string | undefined) => {
    history.replaceState(null, '', location.pathname);
    setPasswordToken(undefined);
    setSetPasswordFor(email);
    setSession(null);
  };
  if (passwordToken !== undefined) content = <SetPassword token={passwordToken} onDone={passwordDone} locale={locale} onLocale={setLocale} />;
  else if (session === undefined) content = <p class="loading">{i18n.t('loading')}</p>;
  else if (session === null) {
    content = (
      <SignIn ended={ended} email={setPasswordFor} notice={setPasswordFor === undefined ? undefined : i18n.t('passwordSet')}
        onSignedIn={(s) => { setEnded(false); setSession(s); }} locale={locale} onLocale={setLocale} />
    );
  }
  else {
    content = (
      <LocationProvider scope="/console">
        <Layout session={session} locale={locale} onLocale={setLocale} zone={zone} onZone={setZone} onSignedOut={() => setSession(null)}>
          <Router>
            <Route path="/console/" component={() => <FleetScreen session={session} />} />
            <Route path="/console/vehicles/:vin" component={({ vin }: { vin: string }) => <VehicleScreen vin={vin} session={session} />} />
            <Route path="/console/vehicles/:vin/trips" component={({ vin }: { vin: string }) => <TripsScreen vin={vin} session={session} />} />
            <Route path="/console/commands" component={() => <CommandsScreen mayCommand={session.commands} />} />
            <Route path="/console/geofences" component={() => <GeofencesScreen session={session} />} />
            <Route path="/console/alerts" component={() => <AlertsScreen session={session} />} />
            <Route path="/console/alert-rules" component={() => <AlertRulesScreen session={session} />} />
            <Route path="/console/people" component={() => <PeopleScreen session={session} />} />
            <Route path="/console/account" component={() => <AccountScreen />} />
            <Route path="/console/audit" component={() => <AuditScreen />} />
            <Route default component={() => <FleetScreen session={session} />} />
          </Router>
        </Layout>
      </LocationProvider>
    );
  }
  return <I18n.Provider value={i18n}>{content}</I18n.Provider>;
}
