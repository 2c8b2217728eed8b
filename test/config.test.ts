import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/read-settings.js';
import { ingestQueueSettingsOf, oidcSettingsOf, tripSettingsOf } from '../src/config/component-settings.js';
import { loadConfig } from '../src/config/load-config.js';
import { SETTINGS } from '../src/config/settings.js';
import { configurationTable } from '../src/config/config-table.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('configuration', () => {
  it('when nothing is set, then the documented defaults apply (embedded SQLite with the simulator and a keys file beside it)', () => {
    expect(loadConfig({}, {})).toMatchObject({
      port: 8080, host: '127.0.0.1', database: './data/telematics.db', sim: true, demo: false, commandTimeoutMs: 120_000,
      logLevel: 'info', keysFile: 'data/telematics.db.keys.json', bodyLimit: 1_048_576,
      telemetryRetentionMs: 192 * HOUR, eventRetentionMs: 30 * DAY, tripRetentionMs: 90 * DAY,
    });
  });

  it('when both a flag and its variable are set, then the flag wins', () => {
    const config = loadConfig({ port: '9001', logLevel: 'debug' }, { PORT: '9000', LOG_LEVEL: 'warn', HOST: '0.0.0.0' });
    expect(config).toMatchObject({ port: 9001, logLevel: 'debug', host: '0.0.0.0' });
  });

  it('when the database is PostgreSQL, then the simulator is off and no keys file is assumed', () => {
    const config = loadConfig({}, { DATABASE_URL: 'postgres://u@h/db' });
    expect(config).toMatchObject({ sim: false, keysFile: undefined });
    expect(loadConfig({ sim: true }, { DATABASE_URL: 'postgres://u@h/db' }).sim).toBe(true);
    expect(loadConfig({ sim: false }, {}).sim).toBe(false);
  });

  it('when several settings are wrong, then one error lists them all', () => {
    const error = (() => {
      try {
        loadConfig({ port: '99999' }, { LOG_LEVEL: 'loud', TELEMATICS_COMMAND_TIMEOUT: 'soon', TELEMATICS_SIM: 'maybe', TELEMATICS_JWT_KEYS: 'x' });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      '--port must be an integer from 0 to 65535, got "99999"',
      'TELEMATICS_SIM must be true or false, got "maybe"',
      'TELEMATICS_COMMAND_TIMEOUT must be an integer from 30 to 86400, got "soon"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'TELEMATICS_JWT_KEYS and TELEMATICS_MASTER_KEYS must be set together',
    ]);
  });

  it('when request limits are set, then they read as rates, 0 turns one off, and nonsense is named', () => {
    const config = loadConfig({ commandRateApp: '0' }, { TELEMATICS_TOKEN_RATE_CLIENT: '5/30s', TELEMATICS_TOKEN_RATE_ADDRESS: '1000/1h' });
    expect(config.tokenRateClient).toEqual({ limit: 5, windowMs: 30_000 });
    expect(config.tokenRateAddress).toEqual({ limit: 1000, windowMs: 3_600_000 });
    expect(config.commandRateApp).toBeNull();
    expect(loadConfig({}, {}).tokenRateClient).toEqual({ limit: 20, windowMs: 60_000 });
    expect(() => loadConfig({}, { TELEMATICS_COMMAND_RATE_APP: 'lots' })).toThrow(
      'TELEMATICS_COMMAND_RATE_APP must be a rate such as 20/1m, 5/30s or 1000/1h (requests per period), or 0 for no limit, got "lots"',
    );
  });

  it('when --trust-proxy is set, then it reads as a hop count or proxy ranges, a bare flag means one proxy, and nonsense is named', () => {
    expect(loadConfig({}, {}).trustProxy).toBe(false);
    expect(loadConfig({ trustProxy: true }, {}).trustProxy).toBe(1);
    expect(loadConfig({}, { TELEMATICS_TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({}, { TELEMATICS_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({}, { TELEMATICS_TRUST_PROXY: 'off' }).trustProxy).toBe(false);
    expect(loadConfig({ trustProxy: '10.0.0.0/8, 127.0.0.1,fd00::/8' }, {}).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);
    for (const wrong of ['11', 'everything', '10.0.0.0/33', '10.0.0/8', '10.0.0.0/8/1']) {
      expect(() => loadConfig({ trustProxy: wrong }, {}), wrong).toThrow(`--trust-proxy must be off, a number of proxies from 1 to 10, or comma-separated proxy addresses and CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1), got "${wrong}"`);
    }
  });

  it('when the operations listener, docs and connection settings are left alone, then metrics stay on the API port, docs are served, and slow or crowding clients are bounded', () => {
    expect(loadConfig({}, {})).toMatchObject({ opsPort: undefined, opsHost: '127.0.0.1', docs: true, requestTimeout: 60_000, connectionsPerAddress: 256 });
    expect(loadConfig({ opsPort: '9100', docs: false, requestTimeout: '20s' }, { TELEMATICS_CONNECTIONS_PER_ADDRESS: '0' }))
      .toMatchObject({ opsPort: 9100, docs: false, requestTimeout: 20_000, connectionsPerAddress: 0 });
    expect(loadConfig({}, { TELEMATICS_DOCS: 'off' }).docs).toBe(false);
  });

  it('when --role is left alone, then the process runs everything; api, workers, gateway, all and lists of them read as roles', () => {
    expect(loadConfig({}, {}).role).toEqual({ api: true, workers: true, gateway: true, writers: true });
    expect(loadConfig({ role: 'api' }, {}).role).toEqual({ api: true, workers: false, gateway: false, writers: false });
    expect(loadConfig({}, { TELEMATICS_ROLE: 'workers' }).role).toEqual({ api: false, workers: true, gateway: false, writers: false });
    expect(loadConfig({}, { TELEMATICS_ROLE: 'gateway' }).role).toEqual({ api: false, workers: false, gateway: true, writers: false });
    expect(loadConfig({ role: 'writers', ingestQueue: 'nats://127.0.0.1:4222' }, {}).role).toEqual({ api: false, workers: false, gateway: false, writers: true });
    expect(loadConfig({}, { TELEMATICS_ROLE: 'api, workers' }).role).toEqual({ api: true, workers: true, gateway: false, writers: false });
    expect(loadConfig({ role: 'ALL' }, { TELEMATICS_ROLE: 'api' }).role).toEqual({ api: true, workers: true, gateway: true, writers: true });
    for (const wrong of ['gateways', 'api,', '', 'everything']) {
      expect(() => loadConfig({ role: wrong }, {}), wrong).toThrow(`--role must be api, workers, gateway, writers or all (or a comma-separated list of them), got "${wrong}"`);
    }
  });

  it('when the ingest queue has credentials, then the secrets come from the environment only, one way at most, and none may sit in the --ingest-queue flag', () => {
    const env = { TELEMATICS_INGEST_QUEUE_USER: 'svc', TELEMATICS_INGEST_QUEUE_PASSWORD: 'pw' };
    expect(ingestQueueSettingsOf(loadConfig({ ingestQueue: 'nats://q:4222' }, env))?.auth).toEqual({ kind: 'password', user: 'svc', password: 'pw' });
    expect(ingestQueueSettingsOf(loadConfig({ ingestQueue: 'nats://q:4222' }, { TELEMATICS_INGEST_QUEUE_TOKEN: 't' }))?.auth).toEqual({ kind: 'token', token: 't' });
    for (const key of ['ingestQueuePassword', 'ingestQueueToken', 'ingestQueueNkeySeed']) {
      const spec = SETTINGS.find((s) => s.key === key)!;
      expect([spec.secret, spec.flag]).toEqual([true, undefined]);
    }
    expect(() => loadConfig({ ingestQueue: 'nats://svc:pw@q:4222' }, {})).toThrow('--ingest-queue must not hold credentials');
    expect(loadConfig({}, { TELEMATICS_INGEST_QUEUE: 'nats://svc:pw@q:4222' }).ingestQueue).toBe('nats://svc:pw@q:4222');
    expect(() => loadConfig({ ingestQueue: 'nats://q:4222', ingestQueueUser: 'svc' }, {})).toThrow('--ingest-queue-user and TELEMATICS_INGEST_QUEUE_PASSWORD must be set together');
    expect(() => loadConfig({ ingestQueue: 'nats://q:4222' }, { ...env, TELEMATICS_INGEST_QUEUE_TOKEN: 't' })).toThrow('one way of authenticating');
    expect(() => loadConfig({ ingestQueue: 'nats://q:4222' }, { TELEMATICS_INGEST_QUEUE_NKEY_SEED: 'SUnope' })).toThrow('must be an NKey user seed');
    expect(() => loadConfig({ ingestQueue: 'nats://q:4222', ingestQueueTlsCa: '/no/such/ca.pem' }, {})).toThrow('--ingest-queue-tls-ca: no file at /no/such/ca.pem');
    expect(() => loadConfig({}, { TELEMATICS_INGEST_QUEUE_TOKEN: 't' })).toThrow('need --ingest-queue');
  });

  it('when --ingest-queue is set, then its servers and limits read as queue settings; writers without a queue, or a wrong URL, are one clear error', () => {
    const config = loadConfig({ ingestQueue: 'nats://10.0.0.1:4222, nats://10.0.0.2:4222,10.0.0.3:4222' }, { TELEMATICS_TELEMETRY_RETENTION: '200' });
    expect(ingestQueueSettingsOf(config)).toEqual({
      servers: ['nats://10.0.0.1:4222', 'nats://10.0.0.2:4222', '10.0.0.3:4222'], partitions: 4, replicas: 3,
      maxBytes: 2048 * 1024 * 1024, maxAgeMs: 200 * 3_600_000, publishTimeoutMs: 10_000, ackWaitMs: 30_000,
    });
    expect(ingestQueueSettingsOf(loadConfig({}, {}))).toBeUndefined();
    expect(ingestQueueSettingsOf(loadConfig({ ingestQueue: 'nats://q:4222', ingestQueueMaxAge: '9d' }, {}))).toMatchObject({ maxAgeMs: 9 * 86_400_000, replicas: 1 });
    expect(ingestQueueSettingsOf(loadConfig({ ingestQueue: 'nats://a:4222,nats://b:4222,nats://c:4222', ingestQueueReplicas: '1' }, {}))?.replicas).toBe(1);
    expect(() => loadConfig({ ingestQueue: 'nats://q:4222', ingestQueueMaxAge: '3d' }, {})).toThrow('--ingest-queue-max-age must be at least the telemetry retention (192 h)');
    expect(() => loadConfig({ role: 'writers' }, {})).toThrow('--role writers needs --ingest-queue');
    expect(() => loadConfig({ ingestQueue: 'http://q:4222/path' }, {})).toThrow('--ingest-queue must be NATS server URLs (nats://host:4222), comma-separated');
  });

  it('when tracker listeners are configured, then TLS needs its three settings and the plain port, and they listen on --host unless --gateway-host says otherwise', () => {
    const config = loadConfig({ teltonikaPort: '5027', osmandPort: '5055' }, { HOST: '10.0.0.5' });
    expect([config.teltonikaPort, config.osmandPort, config.gatewayHost, config.trackerIdleTimeout]).toEqual([5027, 5055, '10.0.0.5', 900_000]);
    expect(loadConfig({ gatewayHost: '0.0.0.0' }, {}).gatewayHost).toBe('0.0.0.0');
    expect(loadConfig({}, {}).teltonikaPort).toBeUndefined();
    expect(() => loadConfig({ teltonikaPort: '5027', teltonikaTlsPort: '5028' }, {})).toThrow('--teltonika-tls-port, --teltonika-tls-cert and --teltonika-tls-key must be set together');
    expect(() => loadConfig({ teltonikaTlsPort: '5028', teltonikaTlsCert: 'c.pem', teltonikaTlsKey: 'k.pem' }, {})).toThrow('--teltonika-tls-port needs --teltonika-port');
    expect(() => loadConfig({ teltonikaPort: '70000' }, {})).toThrow('--teltonika-port must be an integer from 0 to 65535, got "70000"');
  });

  it('when single sign-on is configured, then issuer and client id come together, the secret only from the environment, and the settings reach the console', () => {
    const sso = { oidcClientId: 'telematics', oidcCompany: 'acme' };
    const config = loadConfig({ oidcIssuer: 'https://id.example.com/realms/acme', ...sso }, { TELEMATICS_OIDC_CLIENT_SECRET: 'the secret' });
    expect(oidcSettingsOf(config)).toEqual({ issuer: 'https://id.example.com/realms/acme', companyId: 'acme', clientId: 'telematics', clientSecret: 'the secret', name: 'id.example.com', redirectUri: undefined });
    expect(loadConfig({}, {}).oidcIssuer).toBeUndefined();
    expect(loadConfig({ oidcIssuer: 'http://127.0.0.1:9000/', ...sso }, {}).oidcIssuer).toBe('http://127.0.0.1:9000/');
    const together = '--oidc-issuer, --oidc-client-id and --oidc-company must be set together';
    expect(() => loadConfig({ oidcIssuer: 'https://id.example.com', oidcClientId: 'c' }, {})).toThrow(together);
    expect(() => loadConfig({}, { TELEMATICS_OIDC_CLIENT_SECRET: 'x' })).toThrow(together);
    expect(() => loadConfig({ oidcIssuer: 'id.example.com', ...sso }, {})).toThrow("--oidc-issuer must be the provider's https issuer URL (plain http only on loopback)");
    expect(() => loadConfig({ oidcIssuer: 'http://id.example.com', ...sso }, {})).toThrow('plain http only on loopback');
    expect(() => loadConfig({ oidcIssuer: 'https://id.example.com', ...sso, oidcRedirectUri: 'https://t.example.com/back' }, {})).toThrow('--oidc-redirect-uri must be an http(s) URL ending in /console/oidc/callback');
  });

  it('when the role is not all, then the simulator is off by default, and asking for it (or a demo without the API) is one clear error', () => {
    expect(loadConfig({ role: 'api' }, {}).sim).toBe(false);
    expect(loadConfig({ role: 'workers' }, {}).sim).toBe(false);
    expect(loadConfig({ role: 'api,workers' }, {}).sim).toBe(true);
    expect(() => loadConfig({ role: 'api', sim: true }, {})).toThrow(new ConfigError(['--sim needs --role all: the in-process simulated fleet and automaker cloud serve both the API and the workers']));
    expect(() => loadConfig({}, { TELEMATICS_ROLE: 'workers', TELEMATICS_SIM: 'on' })).toThrow('TELEMATICS_SIM needs --role all');
    expect(() => loadConfig({ role: 'workers', demo: true }, {})).toThrow(new ConfigError(['--demo needs the api role: it prints credentials for the API this process serves']));
    expect(loadConfig({ role: 'api', demo: true }, {}).demo).toBe(true);
  });

  it('when a setting has a fixed default, then the documented default text, given as the value, yields exactly the default', () => {
    const defaults = loadConfig({}, {}) as unknown as Record<string, unknown>;
    const fixed = SETTINGS.filter((s) => s.default !== undefined);
    expect(fixed.length).toBeGreaterThan(30);
    for (const spec of fixed) {
      const given = loadConfig({ [spec.key]: spec.defaultText }, {}) as unknown as Record<string, unknown>;
      expect(given[spec.key], spec.key).toEqual(defaults[spec.key]);
    }
    expect(defaults).toMatchObject({ simBackfill: 2 * 86_400_000, requestTimeout: 60_000, tripLateness: 60_000, trustProxy: false, docs: true });
  });

  it('when the trip settings are left alone, then they are D9\'s thresholds and the worker passes every 5 s', () => {
    expect(tripSettingsOf(loadConfig({}, {}))).toEqual({
      thresholds: { movingSpeedKmh: 3, stopMs: 5 * 60_000, gapMs: 10 * 60_000, minDurationMs: 60_000, minDistanceKm: 0.5 },
      latenessMs: 60_000, retentionMs: 90 * 86_400_000, intervalMs: 5000,
    });
  });

  it('when a retention or the command timeout is a bare number, then it is read in its documented unit (hours, days, seconds), as before units were taken', () => {
    const given = loadConfig({ commandTimeoutMs: '45', telemetryRetentionMs: '200' }, { TELEMATICS_EVENT_RETENTION: '7', TELEMATICS_TRIP_RETENTION: '30' });
    expect(given).toMatchObject({ commandTimeoutMs: 45_000, telemetryRetentionMs: 200 * HOUR, eventRetentionMs: 7 * DAY, tripRetentionMs: 30 * DAY });
  });

  it('when a retention or the command timeout is written with a unit, then it is read as a duration within the same bounds', () => {
    const config = loadConfig({ commandTimeoutMs: '2m', telemetryRetentionMs: '8d' }, { TELEMATICS_EVENT_RETENTION: '36h', TELEMATICS_TRIP_RETENTION: '10.5d' });
    expect(config).toMatchObject({ commandTimeoutMs: 120_000, telemetryRetentionMs: 8 * DAY, eventRetentionMs: 36 * HOUR, tripRetentionMs: 252 * HOUR });
    expect(loadConfig({ commandTimeoutMs: '30s', telemetryRetentionMs: '169h', eventRetentionMs: '1d', tripRetentionMs: '7d' }, {}))
      .toMatchObject({ commandTimeoutMs: 30_000, telemetryRetentionMs: 169 * HOUR, eventRetentionMs: DAY, tripRetentionMs: 7 * DAY });
    expect(loadConfig({ commandTimeoutMs: '1d', telemetryRetentionMs: '365d', eventRetentionMs: '3650d', tripRetentionMs: '3650d' }, {}))
      .toMatchObject({ commandTimeoutMs: DAY, telemetryRetentionMs: 365 * DAY, eventRetentionMs: 3650 * DAY, tripRetentionMs: 3650 * DAY });
  });

  it('when a retention or the command timeout is out of bounds or not a duration, then the problem names the bounds in the form given', () => {
    const problems = (flags: Parameters<typeof loadConfig>[0]) => {
      try {
        loadConfig(flags, {});
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ commandTimeoutMs: '29' })).toEqual(['--command-timeout must be an integer from 30 to 86400, got "29"']);
    expect(problems({ commandTimeoutMs: '1.5' })).toEqual(['--command-timeout must be an integer from 30 to 86400, got "1.5"']);
    expect(problems({ commandTimeoutMs: '29s' })).toEqual(['--command-timeout must be a duration from 30s to 1d (or a number of seconds), got "29s"']);
    expect(problems({ telemetryRetentionMs: '7d' })).toEqual(['--telemetry-retention must be a duration from 169h to 365d (or a number of hours), got "7d"']);
    expect(problems({ telemetryRetentionMs: '168' })).toEqual(['--telemetry-retention must be an integer from 169 to 8760, got "168"']);
    expect(problems({ eventRetentionMs: '12h' })).toEqual(['--event-retention must be a duration from 1d to 3650d (or a number of days), got "12h"']);
    expect(problems({ tripRetentionMs: '3651' })).toEqual(['--trip-retention must be an integer from 7 to 3650, got "3651"']);
    expect(problems({ tripRetentionMs: 'forever' })).toEqual(['--trip-retention must be an integer from 7 to 3650, got "forever"']);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(loadConfig({}, {}))).toBe(true);
  });

  it('matches the generated table in docs/configuration.md (run `npm run docs:config` after changing a setting)', () => {
    const doc = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    const generated = doc.split('<!-- settings:begin -->\n')[1]!.split('\n<!-- settings:end -->')[0];
    expect(generated).toBe(configurationTable());
  });
});
