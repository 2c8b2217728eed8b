/** Problems between settings: each setting read fine on its own, but together they do not hold. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseBasemap } from '../domain/basemap.js';
import { isPostgresUrl } from '../domain/database-url.js';
import { queueServers } from './component-settings.js';
import { HOUR_MS } from './durations.js';
import type { SettingSources, SettingValues } from './read-settings.js';
import type { ServiceConfig } from './settings.js';

type Values = SettingValues<ServiceConfig>;
type Sources = SettingSources<ServiceConfig>;

/** Every problem, in the order the settings concerned are listed; `values` are complete (derived ones too). */
export function crossCheckProblems(values: Values, sources: Sources): string[] {
  const problems: string[] = [];
  const database = values.database!;
  const role = values.role!;
  if (!isPostgresUrl(database) && /^[a-z][a-z0-9+.-]*:\/\//i.test(database)) {
    problems.push(`database "${database.replace(/\/\/[^@/]*@/, '//***@')}" must be a postgres:// URL or a SQLite file path`);
  }
  // Only a `sim` the operator asked for: the derived default is off without both roles.
  if (sources.sim !== undefined && values.sim === true && !(role.api && role.workers)) problems.push(`${sources.sim} needs --role all: the in-process simulated fleet and automaker cloud serve both the API and the workers`);
  if (values.demo === true && !role.api) problems.push(`${sources.demo} needs the api role: it prints credentials for the API this process serves`);
  const tlsSet = [values.teltonikaTlsPort, values.teltonikaTlsCert, values.teltonikaTlsKey].filter((v) => v !== undefined).length;
  if (tlsSet !== 0 && tlsSet !== 3) problems.push('--teltonika-tls-port, --teltonika-tls-cert and --teltonika-tls-key must be set together');
  if (tlsSet === 3 && values.teltonikaPort === undefined) problems.push('--teltonika-tls-port needs --teltonika-port (the plain TCP and UDP listener)');
  if ((values.jwtKeys === undefined) !== (values.masterKeys === undefined)) {
    problems.push('TELEMATICS_JWT_KEYS and TELEMATICS_MASTER_KEYS must be set together');
  }
  if (typeof values.redisUrl === 'string' && !/^rediss?:\/\/[^\s]+$/.test(values.redisUrl)) problems.push(`${sources.redisUrl} must be a redis:// or rediss:// URL`);
  if (typeof values.ingestQueue === 'string' && queueServers(values.ingestQueue).length === 0) problems.push(`${sources.ingestQueue} must be NATS server URLs (nats://host:4222), comma-separated`);
  const retentionMs = values.telemetryRetentionMs!;
  if (typeof values.ingestQueueMaxAge === 'number' && values.ingestQueueMaxAge < retentionMs) {
    problems.push(`${sources.ingestQueueMaxAge} must be at least the telemetry retention (${retentionMs / HOUR_MS} h): a record answered 200 must not expire in the queue before storage would drop it`);
  }
  problems.push(...queueAuthProblems(values, sources));
  if (role.writers && !Object.values(role).every(Boolean) && values.ingestQueue === undefined) problems.push('--role writers needs --ingest-queue: writers store what the queue holds');
  const oidcSet = [values.oidcIssuer, values.oidcClientId, values.oidcCompany].filter((v) => v !== undefined).length;
  if ((oidcSet > 0 && oidcSet < 3) || (oidcSet === 0 && (values.oidcClientSecret !== undefined || values.oidcRedirectUri !== undefined || values.oidcName !== undefined))) {
    problems.push('--oidc-issuer, --oidc-client-id and --oidc-company must be set together (and the other --oidc-* settings only with them)');
  }
  // Plain HTTP only on loopback (a test's provider): elsewhere anyone on the path could forge a sign-in.
  if (typeof values.oidcIssuer === 'string' && !/^(https:\/\/[^\s]+|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/[^\s]*)?)$/.test(values.oidcIssuer)) {
    problems.push(`${sources.oidcIssuer} must be the provider's https issuer URL (plain http only on loopback)`);
  }
  if (typeof values.oidcRedirectUri === 'string' && !/^https?:\/\/[^\s]+\/console\/oidc\/callback$/.test(values.oidcRedirectUri)) {
    problems.push(`${sources.oidcRedirectUri} must be an http(s) URL ending in /console/oidc/callback`);
  }
  if (typeof values.consoleBasemap === 'string') {
    const basemap = parseBasemap(values.consoleBasemap);
    if (basemap === undefined) {
      problems.push(`${sources.consoleBasemap} must be a raster tile URL template with {z}, {x} and {y}, a .pmtiles file, or the http(s) URL of a style, optionally followed by |attribution`);
    } else if (basemap.kind === 'pmtiles' && !existsSync(basemap.file)) {
      problems.push(`${sources.consoleBasemap}: no file at ${resolve(basemap.file)}`);
    }
  }
  return problems;
}

/**
 * The ingest queue's credentials: one way at most, a password with its user, a certificate with
 * its key, and no secret in a flag (`ps` shows flags): credentials written into `--ingest-queue`
 * go in TELEMATICS_INGEST_QUEUE instead.
 */
function queueAuthProblems(values: Values, sources: Sources): string[] {
  const problems: string[] = [];
  if (sources.ingestQueue === '--ingest-queue' && queueServers(String(values.ingestQueue)).some((server) => server.includes('@'))) {
    problems.push('--ingest-queue must not hold credentials (flags show in `ps`): set TELEMATICS_INGEST_QUEUE_USER and TELEMATICS_INGEST_QUEUE_PASSWORD, or TELEMATICS_INGEST_QUEUE_TOKEN');
  }
  if ((values.ingestQueueUser === undefined) !== (values.ingestQueuePassword === undefined)) problems.push('--ingest-queue-user and TELEMATICS_INGEST_QUEUE_PASSWORD must be set together');
  const ways = [values.ingestQueuePassword, values.ingestQueueToken, values.ingestQueueNkeySeed, values.ingestQueueCreds].filter((v) => v !== undefined).length;
  if (ways > 1) problems.push('the ingest queue takes one way of authenticating: a user and password, TELEMATICS_INGEST_QUEUE_TOKEN, TELEMATICS_INGEST_QUEUE_NKEY_SEED or --ingest-queue-creds');
  if (typeof values.ingestQueueNkeySeed === 'string' && !/^SU[A-Z2-7]{56}$/.test(values.ingestQueueNkeySeed.trim())) problems.push('TELEMATICS_INGEST_QUEUE_NKEY_SEED must be an NKey user seed (58 characters starting with SU)');
  if ((values.ingestQueueTlsCert === undefined) !== (values.ingestQueueTlsKey === undefined)) problems.push('--ingest-queue-tls-cert and --ingest-queue-tls-key must be set together');
  for (const key of ['ingestQueueCreds', 'ingestQueueTlsCa', 'ingestQueueTlsCert', 'ingestQueueTlsKey'] as const) {
    const file = values[key];
    if (typeof file === 'string' && !existsSync(file)) problems.push(`${sources[key]}: no file at ${resolve(file)}`);
  }
  const configured = ways > 0 || values.ingestQueueTlsCa !== undefined || values.ingestQueueTlsCert !== undefined;
  if (configured && values.ingestQueue === undefined) problems.push('the ingest queue\'s credentials and TLS settings need --ingest-queue');
  return problems;
}
