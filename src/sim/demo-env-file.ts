/**
 * The demo's address and credentials as shell assignments (`. data/demo.env`), written beside the
 * SQLite file at every start of `serve --demo`: the README's walk-through reads them from there
 * instead of asking people to copy secrets off the screen. The file holds nothing the keys file
 * beside it does not already give (demo secrets are derived from the master key), and is 0600.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Keyring } from '../security/keyring.js';
import { simulatedIngestKey } from '../security/derived-secrets.js';
import { replacePrivateFile } from '../security/private-file.js';
import type { DemoSeedOutcome, DemoTrackerPorts } from './seed-demo.js';
import { DEMO_INGEST_OEM, DEMO_TRACKERS } from './demo-fleet.js';
import { isPostgresUrl } from '../domain/database-url.js';

/** Beside a SQLite file; none for PostgreSQL or an in-memory database, which have no folder of their own. */
export function demoEnvFile(database: string): string | undefined {
  if (isPostgresUrl(database) || database === ':memory:') return undefined;
  return join(dirname(database), 'demo.env');
}

export function writeDemoEnv(path: string, outcome: DemoSeedOutcome, baseUrl: string, keyring: Keyring, trackers: DemoTrackerPorts = {}): void {
  if (outcome.kind === 'skipped') {
    // Credentials that no longer work would only mislead.
    rmSync(path, { force: true });
    return;
  }
  const [acme, globex] = outcome.applications;
  // The demo's own phone and truck, under the names the walk-through uses.
  const { teltonika, osmand, gt06 } = trackers.listening ?? {};
  const lines = [
    '# Written by `telematics serve --demo` at each start (mode 0600): the demo\'s address and credentials.',
    `# Load them into a shell with:  . ${path}`,
    `BASE=${baseUrl}`,
    `CLIENT_ID=${acme!.clientId}`,
    `CLIENT_SECRET=${acme!.clientSecret}`,
    `SIGN_SECRET=${acme!.signSecret}`,
    `GLOBEX_CLIENT_ID=${globex!.clientId}`,
    `GLOBEX_CLIENT_SECRET=${globex!.clientSecret}`,
    `GLOBEX_SIGN_SECRET=${globex!.signSecret}`,
    `# ${acme!.companyName}'s people, one of each role: the console's sign-ins`,
    ...outcome.users.flatMap((u) => [`${u.role.toUpperCase()}_EMAIL=${u.email}`, `${u.role.toUpperCase()}_PASSWORD=${u.password}`]),
    ...(outcome.operator ? [`OPERATOR_EMAIL=${outcome.operator.email}`, `OPERATOR_PASSWORD=${outcome.operator.password}`] : []),
    `# POST /ingest/${DEMO_INGEST_OEM}: the key the service derives for that simulated automaker`,
    `INGEST_OEM=${DEMO_INGEST_OEM}`,
    `INGEST_KEY=${simulatedIngestKey(keyring, DEMO_INGEST_OEM)}`,
    ...(osmand === undefined ? [] : [
      '# The OsmAnd listener and the demo van\'s phone id (OsmAnd has no secret: the id is the identity)',
      `OSMAND_URL=${osmand.endpoint.replace(/\/$/, '')}`,
      `PHONE_ID=${DEMO_TRACKERS.van.phone}`,
    ]),
    ...(teltonika === undefined ? [] : [`TELTONIKA_PORT=${teltonika.port}`]),
    ...(gt06 === undefined ? [] : [`GT06_PORT=${gt06.port}`]),
    '',
  ];
  replacePrivateFile(path, lines.join('\n'));
}
