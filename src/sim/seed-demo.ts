import type { Clock } from '../domain/clock.js';
import type { StoreConnection } from '../store/connection.js';
import { findApplicationByClientId } from '../store/applications-queries.js';
import { countCompanies } from '../store/registry-queries.js';
import { applyFleet } from '../registry/apply-fleet.js';
import { clientSecretMatches } from '../registry/application-secrets.js';
import type { Keyring } from '../security/keyring.js';
import type { RunningGateway } from '../gateway/start-gateway.js';
import { TRACKER_PROTOCOLS } from '../gateway/tracker-protocols.js';
import { demoApplications, demoFleet, type DemoApplication } from './demo-fleet.js';
import { DEMO_ALERT_RULES, DEMO_GEOFENCES, seedDemoWatch } from './demo-watch.js';
import { seedDemoUsers, type DemoUser } from './demo-users.js';
import { seedDemoOperator, type DemoOperator } from './demo-operator.js';
import { DEFAULT_USER_SETTINGS, type UserSettings } from '../users/user-deps.js';

export type DemoSeedOutcome =
  | { readonly kind: 'seeded'; readonly applications: readonly DemoApplication[]; readonly users: readonly DemoUser[]; readonly operator: DemoOperator | undefined; readonly vehicles: number; readonly tracked: number }
  | { readonly kind: 'present'; readonly applications: readonly DemoApplication[]; readonly users: readonly DemoUser[]; readonly operator: DemoOperator | undefined }
  | { readonly kind: 'skipped'; readonly reason: string };

/**
 * Seeds the demo fleet, and what its first company watches, into an empty database; on later
 * starts, finds it again to print its credentials.
 */
export async function seedDemo(store: StoreConnection, keyring: Keyring, clock: Clock, users: UserSettings = DEFAULT_USER_SETTINGS): Promise<DemoSeedOutcome> {
  const { db } = store;
  const applications = demoApplications(keyring);
  const people = { store, keyring, clock, users };
  const operators = { db, passwordHashCost: users.passwordHashCost, now: () => clock.now() };
  if ((await countCompanies(db)) === 0) {
    const fleet = demoFleet(keyring);
    await applyFleet(db, fleet, keyring, clock.now());
    await seedDemoWatch(store, clock, fleet.companies[0]!.id);
    const seededUsers = await seedDemoUsers(people, applications[0]!.companyId);
    const vehicles = fleet.companies.flatMap((c) => c.vehicles);
    const operator = await seedDemoOperator(operators, keyring);
    return { kind: 'seeded', applications, users: seededUsers, operator, vehicles: vehicles.length, tracked: vehicles.filter((v) => v.device).length };
  }
  for (const app of applications) {
    const row = await findApplicationByClientId(db, app.clientId);
    if (!row) return { kind: 'skipped', reason: 'the database already holds a fleet that is not the demo one' };
    if (!clientSecretMatches(app.clientSecret, row.client_secret_hash, keyring)) {
      return { kind: 'skipped', reason: `demo application ${app.clientId} has other credentials now (keys file replaced or secret rotated)` };
    }
  }
  // A demo database from before people (or the operator) existed gets them now.
  return { kind: 'present', applications, users: await seedDemoUsers(people, applications[0]!.companyId), operator: await seedDemoOperator(operators, keyring) };
}

/** Where the demo's trackers connect, when this process listens for them. */
export interface DemoTrackerPorts {
  /** The tracker listeners of this process, by protocol. */
  readonly listening?: RunningGateway['listening'] | undefined;
  /** Whether the web console is served (`--no-console` turns it off). */
  readonly console?: boolean | undefined;
}

export function demoBanner(outcome: DemoSeedOutcome, baseUrl: string, envFile?: string, trackers: DemoTrackerPorts = {}): string {
  if (outcome.kind === 'skipped') return `Demo fleet not seeded: ${outcome.reason}.\n`;
  const [first] = outcome.applications;
  const lines = [
    '',
    outcome.kind === 'seeded' ? `Demo fleet seeded: 2 companies, ${outcome.vehicles} vehicles (${outcome.tracked} with their own trackers).` : 'Demo fleet present.',
    ...(outcome.kind === 'seeded' ? [`${first!.companyName} watches ${DEMO_GEOFENCES.length} geofences and ${DEMO_ALERT_RULES.length} alert rules: their events are in the feed, the webhooks and the console.`] : []),
    ...TRACKER_PROTOCOLS.flatMap(({ protocol, listener }) => {
      const listening = trackers.listening?.[protocol];
      return listening ? [listener.describe(listening)] : [];
    }),
    'Demo credentials (derived from this installation\'s master key; for trying the service only):',
    ...outcome.applications.map((a) =>
      `  ${a.companyName} (${a.companyId})\n    client_id=${a.clientId}\n    client_secret=${a.clientSecret}\n    sign_secret=${a.signSecret}`),
    ...(envFile === undefined ? [] : [`The same, with the base URL and an ingest key, as shell variables: . ${envFile}`]),
    ...(trackers.console ? [
      '',
      `Web console: ${baseUrl}/console/  (sign in as one of ${first!.companyName}'s people, one of each role; docs/people.md):`,
      ...outcome.users.map((u) => `  ${u.role.padEnd(10)} ${u.email}  password ${u.password}`),
      ...(outcome.operator ? [
        `Operator console: ${baseUrl}/operator/  (companies, plans, automakers, vehicles, applications; docs/operator-console.md):`,
        `  operator   ${outcome.operator.email}  password ${outcome.operator.password}`,
      ] : []),
    ] : []),
    '',
    'Try it:',
    `  TOKEN=$(curl -s -X POST ${baseUrl}/token -H 'Accept: application/json' -d client_id=${first!.clientId} -d client_secret=${first!.clientSecret} | sed -E 's/.*"token":"([^"]+)".*/\\1/')`,
    `  curl -s -w '\\n' ${baseUrl}/vehicle -H "Authorization: Bearer $TOKEN"`,
    `  SIG=$(printf '{"command":"diagnostics","vin":"9BWZZZ377VT004251"}' | openssl dgst -sha256 -hmac '${first!.signSecret}' -r | cut -d' ' -f1)`,
    `  curl -s -w '\\n' -X POST ${baseUrl}/vehicle-command -H "Authorization: Bearer $TOKEN" -H "X-Signature: $SIG" -H 'Content-Type: application/json' -d '{"vin":"9BWZZZ377VT004251","command":"diagnostics"}'`,
    '',
    'Webhooks: receivers on this machine (http://127.0.0.1:…) are accepted in the demo; without --demo they need --webhook-allow-cidr.',
    `API docs: ${baseUrl}/docs`,
    '',
  ];
  return lines.join('\n');
}
