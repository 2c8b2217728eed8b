/**
 * Configuration: the one module that reads the environment. Every setting has a flag and/or an
 * environment variable (a flag wins), a default, a unit and a description; docs/configuration.md
 * lists them all and test/config.test.ts keeps the two in sync. Problems are collected and
 * reported together, and the result is frozen.
 *
 * Each default is written once, in SETTINGS, as an operator would write the value (`'5m'`, `120`
 * seconds, `'20/1m'`): it goes through the same parser as a flag, and the docs show it as written.
 */
import { existsSync } from 'node:fs';
import { dirname, join, basename, resolve } from 'node:path';
import { isPostgresUrl } from './domain/database-url.js';
import { parseRate, type Rate } from './domain/rate-limit.js';
import { parseTrustProxy, type TrustProxy } from './domain/trust-proxy.js';
import { allowListOf } from './domain/webhook-url.js';
import { parseBasemap } from './domain/basemap.js';
import { demoTrackerPorts, trackerListenersOf } from './gateway/tracker-ports.js';
import { parseRoles, type Roles } from './workers/roles.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
/** SQLite's `synchronous` modes the service offers (WAL mode): what a commit survives. */
export const SQLITE_SYNCHRONOUS_MODES = ['normal', 'full'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS_MODES)[number];

/** Read at module load (the defaults are parsed then), so declared before them. */
const DURATION_UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'choice' | 'duration' | 'rate' | 'trust-proxy' | 'role' | 'cidrs';

interface SettingDeclaration {
  readonly key: keyof ServiceConfig;
  readonly flag?: string;
  readonly env?: string;
  readonly kind: Kind;
  readonly description: string;
  /**
   * The default as an operator would write it, in the setting's unit (durations and rates as text:
   * `'5m'`, `'20/1m'`). Absent when it depends on other settings or is "none": `defaultText` says so.
   */
  readonly default?: string | number | boolean;
  /** Only for settings without a fixed `default`; otherwise derived from it. */
  readonly defaultText?: string;
  readonly unit?: string;
  readonly min?: number;
  readonly max?: number;
  /** The values a `choice` takes (read case-insensitively). */
  readonly choices?: readonly string[];
  /** Secrets are read from the environment only: flags show up in `ps`. */
  readonly secret?: boolean;
  /** A boolean that is on by default, with a `--no-…` flag to turn it off. */
  readonly negatable?: boolean;
}

export interface SettingSpec extends SettingDeclaration {
  /** The default as the docs and `--help` show it. */
  readonly defaultText: string;
}

export interface ServiceConfig {
  readonly port: number;
  readonly host: string;
  readonly database: string;
  readonly databasePoolSize: number;
  /** SQLite: `normal` (a commit survives the process crashing) or `full` (also the machine losing power). */
  readonly sqliteSynchronous: SqliteSynchronous;
  readonly sim: boolean;
  readonly demo: boolean;
  readonly commandTimeout: number;
  readonly logLevel: LogLevel;
  /** `auto`: lines for a person when stdout is a terminal, JSON otherwise. */
  readonly logFormat: LogFormat;
  readonly keysFile: string | undefined;
  readonly jwtKeys: string | undefined;
  readonly masterKeys: string | undefined;
  readonly jwtIssuer: string;
  readonly jwtAudience: string;
  readonly bodyLimit: number;
  readonly telemetryRetention: number;
  readonly simSeed: number;
  readonly simPeriod: number;
  /** Milliseconds of history generated for simulated vehicles that have none. */
  readonly simBackfill: number;
  readonly simGlitchRate: number;
  readonly tripRetention: number;
  /** Days events are kept in the outbox. */
  readonly eventRetention: number;
  /** Milliseconds without a record after which a vehicle is offline. */
  readonly vehicleOfflineAfter: number;
  readonly tripMovingSpeed: number;
  readonly tripStop: number;
  readonly tripGap: number;
  readonly tripMinDuration: number;
  readonly tripMinDistance: number;
  readonly tripLateness: number;
  /** Rate limits; null when off. */
  readonly tokenRateClient: Rate | null;
  readonly tokenRateAddress: Rate | null;
  readonly commandRateApp: Rate | null;
  readonly trustProxy: TrustProxy;
  /** Port of the operations listener (/metrics, /healthz, /readyz); undefined: on the API port. */
  readonly opsPort: number | undefined;
  readonly opsHost: string;
  /** /docs and /openapi.json on the API port. */
  readonly docs: boolean;
  /** Redis for rate limits shared by every process; undefined: counted per process. */
  readonly redisUrl: string | undefined;
  /** NATS servers of the ingest queue, comma-separated; undefined: ingest writes to the database directly. */
  readonly ingestQueue: string | undefined;
  readonly ingestQueuePartitions: number;
  /** Undefined: 3 with three or more servers listed, else 1 (`ingestQueueSettingsOf`). */
  readonly ingestQueueReplicas: number | undefined;
  /** MiB all ingest streams together may hold. */
  readonly ingestQueueMaxSize: number;
  /** Ms a queued message may wait unstored; undefined: the telemetry retention. */
  readonly ingestQueueMaxAge: number | undefined;
  readonly ingestQueuePublishTimeout: number;
  readonly ingestQueueAckWait: number;
  /** How this process proves itself to NATS (at most one way) and checks the servers (TLS); see ingestQueueSettingsOf. */
  readonly ingestQueueUser: string | undefined;
  readonly ingestQueuePassword: string | undefined;
  readonly ingestQueueToken: string | undefined;
  readonly ingestQueueNkeySeed: string | undefined;
  readonly ingestQueueCreds: string | undefined;
  readonly ingestQueueTlsCa: string | undefined;
  readonly ingestQueueTlsCert: string | undefined;
  readonly ingestQueueTlsKey: string | undefined;
  /** The web console at /console. */
  readonly console: boolean;
  /** A raster tile URL template (with `|attribution`) under the console's map; undefined: none. */
  readonly consoleBasemap: string | undefined;
  /** A console session ends after this long without a request, ms. */
  readonly consoleSessionIdle: number;
  /** A console session ends this long after sign-in whatever the activity, ms. */
  readonly consoleSessionMax: number;
  /** Milliseconds a client may take to send a whole request. */
  readonly requestTimeout: number;
  /** Open connections per client address; 0 for no cap. */
  readonly connectionsPerAddress: number;
  /** Event streams (GET /events/stream) one application may hold open at once, per process. */
  readonly eventStreamsPerApp: number;
  /** Each open event stream's application is checked again this often, ms. */
  readonly eventStreamRecheck: number;
  /** Networks webhooks may reach beyond public HTTPS addresses (plain HTTP included). */
  readonly webhookAllowCidrs?: readonly string[] | undefined;
  /** One webhook attempt's deadline, ms. */
  readonly webhookTimeout: number;
  /** Threads that send webhooks; 0: the dispatcher's own. */
  readonly webhookSendThreads: number;
  readonly webhookEndpointsPerApp: number;
  /** An endpoint failing this long without one success is disabled, ms. */
  readonly webhookDisableAfter: number;
  /** What this process runs: the API, the background workers, the tracker gateway. */
  readonly role: Roles;
  /** Tracker listeners (OPERATIONS.md "Trackers"); undefined: off. */
  readonly teltonikaPort: number | undefined;
  readonly teltonikaTlsPort: number | undefined;
  readonly teltonikaTlsCert: string | undefined;
  readonly teltonikaTlsKey: string | undefined;
  readonly osmandPort: number | undefined;
  /** Address of the tracker listeners; `host` when not set. */
  readonly gatewayHost: string;
  /** Milliseconds a connected tracker may stay silent before it is disconnected. */
  readonly trackerIdleTimeout: number;
  /** Tracker connections open at once; undefined: half the open-file limit. */
  readonly trackerConnections: number | undefined;
  /** Tracker connections per remote address; 0 for no cap. */
  readonly trackerConnectionsPerAddress: number;
}

const DECLARED_SETTINGS: readonly SettingDeclaration[] = [
  { key: 'port', flag: '--port', env: 'PORT', kind: 'integer', min: 0, max: 65535, default: 8080, description: 'TCP port to listen on (0 picks a free one)' },
  { key: 'host', flag: '--host', env: 'HOST', kind: 'string', default: '127.0.0.1', description: 'Address to listen on; 0.0.0.0 for every interface' },
  { key: 'database', flag: '--database', env: 'DATABASE_URL', kind: 'string', default: './data/telematics.db', description: 'A SQLite file path, or a postgres:// URL' },
  { key: 'databasePoolSize', flag: '--database-pool-size', env: 'DATABASE_POOL_SIZE', kind: 'integer', min: 1, max: 1000, default: 10, unit: 'connections', description: 'PostgreSQL connection pool size per process' },
  { key: 'sqliteSynchronous', flag: '--sqlite-synchronous', env: 'TELEMATICS_SQLITE_SYNCHRONOUS', kind: 'choice', choices: SQLITE_SYNCHRONOUS_MODES, default: 'normal', description: 'SQLite only: `normal` (WAL mode; a commit survives the service crashing, not the machine losing power) or `full` (every commit synced to disk before it returns: it survives a power loss too, at a measured cost in creations/s, see "What a commit survives")' },
  { key: 'role', flag: '--role', env: 'TELEMATICS_ROLE', kind: 'role', default: 'all', description: 'What this process runs: `api` (the HTTP API, no background work), `workers` (command polling, trip detection, vehicle presence, retention sweeps; no API listener, only the operations listener when `--ops-port` is set), `gateway` (the tracker listeners that are configured and the sending of commands to trackers connected to it), `writers` (with `--ingest-queue`: store the queued telemetry), or `all`. Processes with different roles on one database behave as one `all` process; see "Roles"' },
  { key: 'sim', flag: '--sim', env: 'TELEMATICS_SIM', kind: 'boolean', negatable: true, defaultText: 'on for SQLite with `--role all`, off otherwise', description: 'Run the simulated automaker cloud and fleet in-process (`--no-sim` turns it off)' },
  { key: 'demo', flag: '--demo', env: 'TELEMATICS_DEMO', kind: 'boolean', default: false, description: 'Seed a demo fleet into an empty database and print its credentials' },
  { key: 'commandTimeout', flag: '--command-timeout', env: 'TELEMATICS_COMMAND_TIMEOUT', kind: 'integer', min: 30, max: 86_400, default: 120, unit: 'seconds', description: 'Deadline of a remote command before it ends as `Command timeout.`' },
  { key: 'logLevel', flag: '--log-level', env: 'LOG_LEVEL', kind: 'choice', choices: LOG_LEVELS, default: 'info', description: `Log level: ${LOG_LEVELS.join(', ')}` },
  { key: 'logFormat', flag: '--log-format', env: 'LOG_FORMAT', kind: 'choice', choices: LOG_FORMATS, default: 'auto', description: 'Log lines as JSON (`json`), or for a person (`pretty`: time, level, message, the rest on one line); `auto` is `pretty` when stdout is a terminal and JSON otherwise' },
  { key: 'keysFile', flag: '--keys-file', env: 'TELEMATICS_KEYS_FILE', kind: 'string', defaultText: '`<database>.keys.json` beside a SQLite file; none for PostgreSQL', description: 'JSON file with the JWT signing keys and master keys (mode 0600); see "Keys"' },
  { key: 'jwtKeys', env: 'TELEMATICS_JWT_KEYS', kind: 'string', secret: true, defaultText: '(none)', description: 'JWT signing keys, base64 of ≥32 random bytes, comma-separated, current first; with TELEMATICS_MASTER_KEYS replaces the keys file' },
  { key: 'masterKeys', env: 'TELEMATICS_MASTER_KEYS', kind: 'string', secret: true, defaultText: '(none)', description: 'Master keys (encrypt sign-secrets, pepper secret hashes), base64 of ≥32 random bytes, comma-separated, current first' },
  { key: 'jwtIssuer', flag: '--jwt-issuer', env: 'TELEMATICS_JWT_ISSUER', kind: 'string', default: 'telematics', description: 'The `iss` claim of issued tokens (checked on every request)' },
  { key: 'jwtAudience', flag: '--jwt-audience', env: 'TELEMATICS_JWT_AUDIENCE', kind: 'string', default: 'telematics-api', description: 'The `aud` claim of issued tokens (checked on every request)' },
  { key: 'telemetryRetention', flag: '--telemetry-retention', env: 'TELEMATICS_TELEMETRY_RETENTION', kind: 'integer', min: 169, max: 8760, default: 192, unit: 'hours', description: 'How long telemetry is kept: the 7 days the interface promises plus a margin; older records are refused at ingest and dropped hourly' },
  { key: 'simSeed', flag: '--sim-seed', env: 'TELEMATICS_SIM_SEED', kind: 'integer', min: 0, max: 2_147_483_647, default: 1, description: 'Seed of the simulated fleet: the same seed gives the same routes and values' },
  { key: 'simPeriod', flag: '--sim-period', env: 'TELEMATICS_SIM_PERIOD', kind: 'integer', min: 1, max: 3600, default: 10, unit: 'seconds', description: 'Sampling period of simulated vehicles' },
  { key: 'simBackfill', flag: '--sim-backfill', env: 'TELEMATICS_SIM_BACKFILL', kind: 'duration', min: 0, max: 7 * 86_400_000, default: '2d', description: 'History generated at start for simulated vehicles, up to now (e.g. 2d, 36h, 90m, 0); a vehicle with data resumes where it ends' },
  { key: 'simGlitchRate', flag: '--sim-glitch-rate', env: 'TELEMATICS_SIM_GLITCH_RATE', kind: 'number', min: 0, max: 1, default: 0.002, description: 'Share of simulated samples with one faulty value (flagged at ingest)' },
  { key: 'eventRetention', flag: '--event-retention', env: 'TELEMATICS_EVENT_RETENTION', kind: 'integer', min: 1, max: 3650, default: 30, unit: 'days', description: 'How long events (command outcomes, trips started and ended, ignition, online/offline, charging) are kept; a feed cursor from before dropped events gets 410' },
  { key: 'vehicleOfflineAfter', flag: '--vehicle-offline-after', env: 'TELEMATICS_VEHICLE_OFFLINE_AFTER', kind: 'duration', min: 60_000, max: 86_400_000, default: '15m', description: 'A vehicle without a record for this long is offline (`vehicle.offline`); its next record makes it online again' },
  { key: 'tripRetention', flag: '--trip-retention', env: 'TELEMATICS_TRIP_RETENTION', kind: 'integer', min: 7, max: 3650, default: 90, unit: 'days', description: 'How long trips are kept' },
  { key: 'tripMovingSpeed', flag: '--trip-moving-speed', env: 'TELEMATICS_TRIP_MOVING_SPEED', kind: 'number', min: 0, max: 50, default: 3, unit: 'km/h', description: 'A record faster than this is moving: it starts or continues a trip' },
  { key: 'tripStop', flag: '--trip-stop', env: 'TELEMATICS_TRIP_STOP', kind: 'duration', min: 1000, max: 86_400_000, default: '5m', description: 'Standing still this long ends a trip (shorter stops stay inside it)' },
  { key: 'tripGap', flag: '--trip-gap', env: 'TELEMATICS_TRIP_GAP', kind: 'duration', min: 1000, max: 86_400_000, default: '10m', description: 'Data stopping for longer than this ends a trip' },
  { key: 'tripMinDuration', flag: '--trip-min-duration', env: 'TELEMATICS_TRIP_MIN_DURATION', kind: 'duration', min: 0, max: 86_400_000, default: '1m', description: 'Shorter trips are discarded' },
  { key: 'tripMinDistance', flag: '--trip-min-distance', env: 'TELEMATICS_TRIP_MIN_DISTANCE', kind: 'number', min: 0, max: 100, default: 0.5, unit: 'km', description: 'Shorter trips are discarded' },
  { key: 'tripLateness', flag: '--trip-lateness', env: 'TELEMATICS_TRIP_LATENESS', kind: 'duration', min: 0, max: 3_600_000, default: '1m', description: 'Records younger than this wait for the next detection pass; later arrivals make detection rewind' },
  { key: 'tokenRateClient', flag: '--token-rate-client', env: 'TELEMATICS_TOKEN_RATE_CLIENT', kind: 'rate', default: '20/1m', description: 'Failed POST /token attempts per client id; over it, wrong secrets get 429 with Retry-After while a correct secret still gets its token. `0` turns it off' },
  { key: 'tokenRateAddress', flag: '--token-rate-address', env: 'TELEMATICS_TOKEN_RATE_ADDRESS', kind: 'rate', default: '100/1m', description: 'POST /token requests per client address, whatever the client id; `0` turns it off' },
  { key: 'commandRateApp', flag: '--command-rate-app', env: 'TELEMATICS_COMMAND_RATE_APP', kind: 'rate', default: '600/1m', description: 'POST /vehicle-command requests per application; `0` turns it off' },
  { key: 'trustProxy', flag: '--trust-proxy', env: 'TELEMATICS_TRUST_PROXY', kind: 'trust-proxy', default: 'off', description: 'Behind reverse proxies: the number of proxies in front (`1` for one nginx or load balancer; a bare `--trust-proxy` means 1), or their addresses and ranges (`10.0.0.0/8,127.0.0.1`). The client address is then the X-Forwarded-For hop just before the trusted proxies, never a hop the client wrote; it feeds the per-address limits and logs. `off` believes no X-Forwarded-For' },
  { key: 'connectionsPerAddress', flag: '--connections-per-address', env: 'TELEMATICS_CONNECTIONS_PER_ADDRESS', kind: 'integer', min: 0, max: 1_000_000, default: 256, unit: 'connections', description: 'Open connections one client address (an IPv6 /64) may hold; more are closed at once. Proxies trusted by range are not capped, and with a hop count no direct peer is (they are the proxies: cap in the proxy). `0` turns it off' },
  { key: 'eventStreamsPerApp', flag: '--event-streams-per-app', env: 'TELEMATICS_EVENT_STREAMS_PER_APP', kind: 'integer', min: 1, max: 10_000, default: 5, unit: 'streams', description: 'Event streams (GET /events/stream) one application may hold open at once in this process; one more is answered 429' },
  { key: 'eventStreamRecheck', flag: '--event-stream-recheck', env: 'TELEMATICS_EVENT_STREAM_RECHECK', kind: 'duration', min: 100, max: 60_000, default: '5s', description: 'How often each open event stream is checked again as a new request would be: the streams of an application disabled (`admin app disable`) or whose secret was rotated end within this long, not when their token expires' },
  { key: 'webhookAllowCidrs', flag: '--webhook-allow-cidr', env: 'TELEMATICS_WEBHOOK_ALLOW_CIDRS', kind: 'cidrs', defaultText: '(none: public HTTPS only)', description: 'A network webhook endpoints may be on (e.g. a LAN, 10.20.0.0/16), plain HTTP included; repeatable, comma-separated in the environment. Loopback, private, link-local and reserved addresses outside these ranges are refused, at registration and at every connection; cloud metadata addresses always are' },
  { key: 'webhookTimeout', flag: '--webhook-timeout', env: 'TELEMATICS_WEBHOOK_TIMEOUT', kind: 'duration', min: 1000, max: 60_000, default: '15s', description: 'How long one webhook attempt may take (connection and answer) before it counts as failed' },
  { key: 'webhookSendThreads', flag: '--webhook-send-threads', env: 'TELEMATICS_WEBHOOK_SEND_THREADS', kind: 'integer', min: 0, max: 16, default: 1, unit: 'threads', description: 'Threads that make the webhook POSTs (connections, requests, answers), each endpoint always on the same one; the dispatcher keeps the database and the signing in the main thread. `0` sends from the main thread' },
  { key: 'webhookEndpointsPerApp', flag: '--webhook-endpoints-per-app', env: 'TELEMATICS_WEBHOOK_ENDPOINTS_PER_APP', kind: 'integer', min: 1, max: 1000, default: 10, unit: 'endpoints', description: 'Webhook endpoints one application may register' },
  { key: 'webhookDisableAfter', flag: '--webhook-disable-after', env: 'TELEMATICS_WEBHOOK_DISABLE_AFTER', kind: 'duration', min: 3_600_000, max: 30 * 86_400_000, default: '5d', description: 'A webhook endpoint that has failed for this long without a single success is disabled (a short burst of failures never is); its application re-verifies it to enable it again' },
  { key: 'requestTimeout', flag: '--request-timeout', env: 'TELEMATICS_REQUEST_TIMEOUT', kind: 'duration', min: 1000, max: 600_000, default: '60s', description: 'Longest a client may take to send a whole request, headers and body (headers alone: at most 10 s); slower ones get 408 and are disconnected. 60 s carries an 8 MiB ingest batch over about 1.1 Mbit/s' },
  { key: 'opsPort', flag: '--ops-port', env: 'TELEMATICS_OPS_PORT', kind: 'integer', min: 0, max: 65535, defaultText: '(none: on the API port)', description: 'Serve /metrics, /healthz and /readyz on their own listener, and /metrics no longer on the API port (SECURITY.md, "What each endpoint exposes"); the only listener of a `--role workers` process' },
  { key: 'opsHost', flag: '--ops-host', env: 'TELEMATICS_OPS_HOST', kind: 'string', default: '127.0.0.1', description: 'Address of the operations listener' },
  { key: 'redisUrl', flag: '--redis-url', env: 'TELEMATICS_REDIS_URL', kind: 'string', defaultText: '(none: each process counts its own)', description: 'Redis (redis://host:6379) where every process counts the request limits, so N instances allow the configured total, not N times it; while it is unreachable each process counts its own' },
  { key: 'ingestQueue', flag: '--ingest-queue', env: 'TELEMATICS_INGEST_QUEUE', kind: 'string', defaultText: '(none: ingest writes to the database in the request)', description: 'NATS JetStream servers (nats://host:4222, comma-separated) that carry telemetry from the edges (POST /ingest, trackers) to the `writers`: an ingest is answered 200 once the queue holds it, 503 with Retry-After when it cannot; see docs/scaling.md' },
  { key: 'ingestQueuePartitions', flag: '--ingest-queue-partitions', env: 'TELEMATICS_INGEST_QUEUE_PARTITIONS', kind: 'integer', min: 1, max: 64, default: 4, unit: 'streams', description: 'Streams the VINs are split over (one RAFT leader each); every process of a deployment must use the same number' },
  { key: 'ingestQueueReplicas', flag: '--ingest-queue-replicas', env: 'TELEMATICS_INGEST_QUEUE_REPLICAS', kind: 'integer', min: 1, max: 5, defaultText: '3 when `--ingest-queue` names three or more servers, else 1', unit: 'copies', description: 'Copies of each stream on different NATS servers, so losing one server (of 3 copies) or two (of 5) loses nothing; list every server of the cluster in `--ingest-queue`, or set it' },
  { key: 'ingestQueueMaxSize', flag: '--ingest-queue-max-size', env: 'TELEMATICS_INGEST_QUEUE_MAX_SIZE', kind: 'integer', min: 16, max: 16 * 1024 * 1024, default: 2048, unit: 'MiB', description: 'Backlog all streams together may hold while storage is slow or down; when full, ingest is answered 503 and senders keep their data (docs/scaling.md has the arithmetic)' },
  { key: 'ingestQueueMaxAge', flag: '--ingest-queue-max-age', env: 'TELEMATICS_INGEST_QUEUE_MAX_AGE', kind: 'duration', min: 3_600_000, max: 365 * 86_400_000, defaultText: 'the telemetry retention', description: 'A queued message not stored after this long is dropped; at least the telemetry retention (`--telemetry-retention`), past which storage would drop its records anyway' },
  { key: 'ingestQueuePublishTimeout', flag: '--ingest-queue-publish-timeout', env: 'TELEMATICS_INGEST_QUEUE_PUBLISH_TIMEOUT', kind: 'duration', min: 1000, max: 60_000, default: '10s', description: 'How long an ingest waits for the queue to acknowledge (retrying through a leader election) before answering 503' },
  { key: 'ingestQueueAckWait', flag: '--ingest-queue-ack-wait', env: 'TELEMATICS_INGEST_QUEUE_ACK_WAIT', kind: 'duration', min: 5000, max: 600_000, default: '30s', description: 'A message a writer took and did not acknowledge in this time (crashed, stopped) goes to another writer' },
  { key: 'ingestQueueUser', flag: '--ingest-queue-user', env: 'TELEMATICS_INGEST_QUEUE_USER', kind: 'string', defaultText: '(none)', description: 'User name this process gives the NATS servers, with TELEMATICS_INGEST_QUEUE_PASSWORD; see docs/scaling.md, "Securing the queue"' },
  { key: 'ingestQueuePassword', env: 'TELEMATICS_INGEST_QUEUE_PASSWORD', kind: 'string', secret: true, defaultText: '(none)', description: 'Password of `--ingest-queue-user`' },
  { key: 'ingestQueueToken', env: 'TELEMATICS_INGEST_QUEUE_TOKEN', kind: 'string', secret: true, defaultText: '(none)', description: 'Token this process gives the NATS servers (their `authorization { token }`), instead of a user and password' },
  { key: 'ingestQueueNkeySeed', env: 'TELEMATICS_INGEST_QUEUE_NKEY_SEED', kind: 'string', secret: true, defaultText: '(none)', description: 'NKey user seed (`SU…`) this process signs the NATS servers\' challenge with, instead of a password or token' },
  { key: 'ingestQueueCreds', flag: '--ingest-queue-creds', env: 'TELEMATICS_INGEST_QUEUE_CREDS', kind: 'string', defaultText: '(none)', description: 'A NATS `.creds` file (user JWT and NKey seed, as `nsc` writes it) for servers in operator mode, instead of the other ways; keep it mode 0600' },
  { key: 'ingestQueueTlsCa', flag: '--ingest-queue-tls-ca', env: 'TELEMATICS_INGEST_QUEUE_TLS_CA', kind: 'string', defaultText: '(none: TLS only with tls:// URLs or a server that asks, checked against the system CAs)', description: 'PEM file of the CA(s) the NATS servers\' certificates are checked against; setting it makes TLS required' },
  { key: 'ingestQueueTlsCert', flag: '--ingest-queue-tls-cert', env: 'TELEMATICS_INGEST_QUEUE_TLS_CERT', kind: 'string', defaultText: '(none)', description: 'PEM client certificate file for NATS servers that verify clients (`verify: true`), with `--ingest-queue-tls-key`' },
  { key: 'ingestQueueTlsKey', flag: '--ingest-queue-tls-key', env: 'TELEMATICS_INGEST_QUEUE_TLS_KEY', kind: 'string', defaultText: '(none)', description: 'PEM private key file of `--ingest-queue-tls-cert`' },
  { key: 'console', flag: '--console', env: 'TELEMATICS_CONSOLE', kind: 'boolean', negatable: true, default: true, description: 'Serve the web console at /console (and redirect / there); `--no-console` turns it off' },
  { key: 'consoleBasemap', flag: '--console-basemap', env: 'TELEMATICS_CONSOLE_BASEMAP', kind: 'string', defaultText: '(none: Natural Earth land and borders shipped with the console)', description: 'The console map\'s basemap: a raster tile URL template (`https://tiles.example/{z}/{x}/{y}.png`), a local `.pmtiles` file the service serves to the console, or the http(s) URL of a MapLibre style; text after `|` is the attribution (docs/console.md)' },
  { key: 'consoleSessionIdle', flag: '--console-session-idle', env: 'TELEMATICS_CONSOLE_SESSION_IDLE', kind: 'duration', min: 60_000, max: 86_400_000, default: '30m', description: 'A console session ends after this long without a request' },
  { key: 'consoleSessionMax', flag: '--console-session-max', env: 'TELEMATICS_CONSOLE_SESSION_MAX', kind: 'duration', min: 60_000, max: 30 * 86_400_000, default: '12h', description: 'A console session ends this long after sign-in, whatever the activity' },
  { key: 'docs', flag: '--docs', env: 'TELEMATICS_DOCS', kind: 'boolean', negatable: true, default: true, description: 'Serve /docs and /openapi.json (the public interface, nothing more) on the API port; `--no-docs` turns them off' },
  { key: 'teltonikaPort', flag: '--teltonika-port', env: 'TELEMATICS_TELTONIKA_PORT', kind: 'integer', min: 0, max: 65535, defaultText: '(none: off; 5027 with `--demo`, so `npm start` listens)', description: 'Listen for Teltonika trackers on this TCP and UDP port (Codec 8, 8 Extended, 16; Codec 12 commands); see "Trackers"' },
  { key: 'teltonikaTlsPort', flag: '--teltonika-tls-port', env: 'TELEMATICS_TELTONIKA_TLS_PORT', kind: 'integer', min: 0, max: 65535, defaultText: '(none: off)', description: 'Also listen for Teltonika trackers over TLS on this port (needs `--teltonika-tls-cert` and `--teltonika-tls-key`)' },
  { key: 'teltonikaTlsCert', flag: '--teltonika-tls-cert', env: 'TELEMATICS_TELTONIKA_TLS_CERT', kind: 'string', defaultText: '(none)', description: 'PEM certificate (chain) file of the Teltonika TLS listener' },
  { key: 'teltonikaTlsKey', flag: '--teltonika-tls-key', env: 'TELEMATICS_TELTONIKA_TLS_KEY', kind: 'string', defaultText: '(none)', description: 'PEM private key file of the Teltonika TLS listener' },
  { key: 'osmandPort', flag: '--osmand-port', env: 'TELEMATICS_OSMAND_PORT', kind: 'integer', min: 0, max: 65535, defaultText: '(none: off; 5055 with `--demo`)', description: 'Listen for phone tracking apps speaking OsmAnd (Traccar Client) over HTTP on this port' },
  { key: 'gatewayHost', flag: '--gateway-host', env: 'TELEMATICS_GATEWAY_HOST', kind: 'string', defaultText: 'the value of `--host`', description: 'Address of the tracker listeners; trackers connect from the internet, so usually 0.0.0.0 while the API stays behind a proxy' },
  { key: 'trackerIdleTimeout', flag: '--tracker-idle-timeout', env: 'TELEMATICS_TRACKER_IDLE_TIMEOUT', kind: 'duration', min: 10_000, max: 86_400_000, default: '15m', description: 'A connected tracker that sends nothing (not even a keep-alive) for this long is disconnected; it reconnects when it has data' },
  { key: 'trackerConnections', flag: '--tracker-connections', env: 'TELEMATICS_TRACKER_CONNECTIONS', kind: 'integer', min: 1, max: 1_000_000, defaultText: 'half the open-file limit (512 where it cannot be read)', unit: 'connections', description: 'Tracker connections (Teltonika TCP and TLS, OsmAnd HTTP together) open at once; more are closed at once and counted in `tracker_connections_refused_total`. At most the open-file limit less 64, so the API, the database and log files always have descriptors; the limit and the cap are logged at start (see "Trackers")' },
  { key: 'trackerConnectionsPerAddress', flag: '--tracker-connections-per-address', env: 'TELEMATICS_TRACKER_CONNECTIONS_PER_ADDRESS', kind: 'integer', min: 0, max: 1_000_000, default: 1000, unit: 'connections', description: 'Tracker connections one remote address (an IPv6 /64) may hold open; more are closed at once. Trackers behind one NAT or a private APN share an address: raise it, or `0` turns it off' },
  { key: 'bodyLimit', flag: '--body-limit', env: 'TELEMATICS_BODY_LIMIT', kind: 'integer', min: 1024, max: 64 * 1024 * 1024, default: 1_048_576, unit: 'bytes', description: 'Largest request body accepted; larger ones get 413' },
];

/** A fixed default as the docs show it: as written, booleans as on/off. */
function defaultTextOf(spec: SettingDeclaration): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.default === undefined) throw new Error(`setting ${spec.key} has neither a default nor a defaultText`);
  if (typeof spec.default === 'boolean') return spec.default ? 'on' : 'off';
  return String(spec.default);
}

export const SETTINGS: readonly SettingSpec[] = Object.freeze(DECLARED_SETTINGS.map((spec) => Object.freeze({ ...spec, defaultText: defaultTextOf(spec) })));

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? problems[0] : `invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Flag values as the CLI parser hands them over, keyed like ServiceConfig. */
export type FlagValues = Partial<Record<keyof ServiceConfig, string | number | boolean | undefined>>;

function parseValue(spec: SettingSpec, raw: string | number | boolean, source: string, problems: string[]): unknown {
  switch (spec.kind) {
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      const text = String(raw).toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(text)) return true;
      if (['0', 'false', 'no', 'off'].includes(text)) return false;
      problems.push(`${source} must be true or false, got "${raw}"`);
      return undefined;
    }
    case 'integer': {
      const text = String(raw).trim();
      const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(n) || (spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        problems.push(`${source} must be an integer from ${spec.min} to ${spec.max}, got "${raw}"`);
        return undefined;
      }
      return n;
    }
    case 'number': {
      const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
      if (String(raw).trim() === '' || !Number.isFinite(n) || (spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        problems.push(`${source} must be a number from ${spec.min} to ${spec.max}, got "${raw}"`);
        return undefined;
      }
      return n;
    }
    case 'duration': {
      const ms = parseDuration(String(raw));
      if (ms === undefined || (spec.min !== undefined && ms < spec.min) || (spec.max !== undefined && ms > spec.max)) {
        problems.push(`${source} must be a duration such as 2d, 36h, 90m, 45s or 0, from ${formatDurationMs(spec.min ?? 0)} to ${formatDurationMs(spec.max ?? 0)}, got "${raw}"`);
        return undefined;
      }
      return ms;
    }
    case 'choice': {
      const text = String(raw).toLowerCase();
      const choices = spec.choices ?? [];
      if (!choices.includes(text)) {
        problems.push(`${source} must be one of ${choices.join(', ')}, got "${raw}"`);
        return undefined;
      }
      return text;
    }
    case 'trust-proxy': {
      const trust = parseTrustProxy(raw);
      if (trust === undefined) {
        problems.push(`${source} must be off, a number of proxies from 1 to 10, or comma-separated proxy addresses and CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1), got "${raw}"`);
        return undefined;
      }
      return trust;
    }
    case 'role': {
      const roles = parseRoles(String(raw));
      if (roles === undefined) {
        problems.push(`${source} must be api, workers, gateway, writers or all (or a comma-separated list of them), got "${raw}"`);
        return undefined;
      }
      return roles;
    }
    case 'rate': {
      const rate = parseRate(String(raw));
      if (rate === undefined) {
        problems.push(`${source} must be a rate such as 20/1m, 5/30s or 1000/1h (requests per period), or 0 for no limit, got "${raw}"`);
        return undefined;
      }
      return rate;
    }
    case 'cidrs': {
      const list = String(raw).split(',').map((c) => c.trim()).filter((c) => c !== '');
      try {
        allowListOf(list);
      } catch (error) {
        problems.push(`${source}: ${(error as Error).message}`);
        return undefined;
      }
      return list;
    }
    case 'string': {
      const text = String(raw);
      if (text.trim() === '') {
        problems.push(`${source} must not be empty`);
        return undefined;
      }
      return text;
    }
  }
}

/** The defaults, parsed once like flag values; a default its own parser refuses is a bug, caught at load. */
const DEFAULTS: Readonly<Record<string, unknown>> = (() => {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    values[spec.key] = spec.default === undefined ? undefined : parseValue(spec, spec.default, `the default of ${spec.key}`, problems);
  }
  if (problems.length > 0) throw new Error(`invalid defaults in SETTINGS: ${problems.join('; ')}`);
  return Object.freeze(values);
})();

/** Builds the configuration from flags and the environment (flag wins). Throws one ConfigError listing every problem. */
export function loadConfig(flags: FlagValues = {}, env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const problems: string[] = [];
  const values: Record<string, unknown> = { ...DEFAULTS };
  /** Where each value set by the operator came from, to name it in problems between settings. */
  const sources: Partial<Record<keyof ServiceConfig, string>> = {};
  for (const spec of SETTINGS) {
    const flagValue = flags[spec.key];
    const envValue = spec.env === undefined ? undefined : env[spec.env];
    if (flagValue !== undefined) {
      const v = parseValue(spec, flagValue, spec.flag ?? spec.key, problems);
      if (v !== undefined) values[spec.key] = v;
      sources[spec.key] = spec.flag ?? spec.key;
    } else if (envValue !== undefined && envValue !== '') {
      const v = parseValue(spec, envValue, spec.env!, problems);
      if (v !== undefined) values[spec.key] = v;
      sources[spec.key] = spec.env!;
    }
  }
  const database = values.database as string;
  const embedded = !isPostgresUrl(database);
  if (embedded && /^[a-z][a-z0-9+.-]*:\/\//i.test(database)) {
    problems.push(`database "${database.replace(/\/\/[^@/]*@/, '//***@')}" must be a postgres:// URL or a SQLite file path`);
  }
  const role = values.role as Roles;
  // The simulated fleet pushes to this process's API and its cloud is polled by this process's
  // command worker: it needs both halves in one process.
  if (values.sim === undefined) values.sim = embedded && role.api && role.workers;
  else if (values.sim === true && !(role.api && role.workers)) problems.push(`${sources.sim} needs --role all: the in-process simulated fleet and automaker cloud serve both the API and the workers`);
  if (values.demo === true && !role.api) problems.push(`${sources.demo} needs the api role: it prints credentials for the API this process serves`);
  if (values.gatewayHost === undefined) values.gatewayHost = values.host;
  // The demo shows both paths: its fleet has simulated trackers, so it listens for them.
  if (values.demo === true && role.gateway) Object.assign(values, demoTrackerPorts(values));
  const tlsSet = [values.teltonikaTlsPort, values.teltonikaTlsCert, values.teltonikaTlsKey].filter((v) => v !== undefined).length;
  if (tlsSet !== 0 && tlsSet !== 3) problems.push('--teltonika-tls-port, --teltonika-tls-cert and --teltonika-tls-key must be set together');
  if (tlsSet === 3 && values.teltonikaPort === undefined) problems.push('--teltonika-tls-port needs --teltonika-port (the plain TCP and UDP listener)');
  if (values.keysFile === undefined && embedded && database !== ':memory:') values.keysFile = defaultKeysFile(database);
  if ((values.jwtKeys === undefined) !== (values.masterKeys === undefined)) {
    problems.push('TELEMATICS_JWT_KEYS and TELEMATICS_MASTER_KEYS must be set together');
  }
  if (typeof values.redisUrl === 'string' && !/^rediss?:\/\/[^\s]+$/.test(values.redisUrl)) problems.push(`${sources.redisUrl} must be a redis:// or rediss:// URL`);
  if (typeof values.ingestQueue === 'string' && queueServers(values.ingestQueue).length === 0) problems.push(`${sources.ingestQueue} must be NATS server URLs (nats://host:4222), comma-separated`);
  if (typeof values.ingestQueueMaxAge === 'number' && values.ingestQueueMaxAge < (values.telemetryRetention as number) * 3_600_000) {
    problems.push(`${sources.ingestQueueMaxAge} must be at least the telemetry retention (${values.telemetryRetention} h): a record answered 200 must not expire in the queue before storage would drop it`);
  }
  problems.push(...queueAuthProblems(values, sources));
  if (role.writers && !Object.values(role).every(Boolean) && values.ingestQueue === undefined) problems.push('--role writers needs --ingest-queue: writers store what the queue holds');
  if (typeof values.consoleBasemap === 'string') {
    const basemap = parseBasemap(values.consoleBasemap);
    if (basemap === undefined) {
      problems.push(`${sources.consoleBasemap} must be a raster tile URL template with {z}, {x} and {y}, a .pmtiles file, or the http(s) URL of a style, optionally followed by |attribution`);
    } else if (basemap.kind === 'pmtiles' && !existsSync(basemap.file)) {
      problems.push(`${sources.consoleBasemap}: no file at ${resolve(basemap.file)}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(values as unknown as ServiceConfig);
}

/** The servers of `--ingest-queue`; empty when one of them is not a nats:// or tls:// URL or host:port. */
export function queueServers(text: string): string[] {
  const servers = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return servers.every((s) => /^((nats|tls):\/\/)?[^\s/]+(:\d{1,5})?\/?$/.test(s)) ? servers : [];
}

/**
 * The ingest queue's credentials: one way at most, a password with its user, a certificate with
 * its key, and no secret in a flag (`ps` shows flags): credentials written into `--ingest-queue`
 * go in TELEMATICS_INGEST_QUEUE instead.
 */
function queueAuthProblems(values: Record<string, unknown>, sources: Partial<Record<keyof ServiceConfig, string>>): string[] {
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

/** The ingest queue's settings as configured; undefined without `--ingest-queue`. */
export function ingestQueueSettingsOf(config: ServiceConfig) {
  if (config.ingestQueue === undefined) return undefined;
  const servers = queueServers(config.ingestQueue);
  return {
    servers,
    partitions: config.ingestQueuePartitions,
    replicas: config.ingestQueueReplicas ?? (servers.length >= 3 ? 3 : 1),
    maxBytes: config.ingestQueueMaxSize * 1024 * 1024,
    maxAgeMs: config.ingestQueueMaxAge ?? config.telemetryRetention * 3_600_000,
    publishTimeoutMs: config.ingestQueuePublishTimeout,
    ackWaitMs: config.ingestQueueAckWait,
    auth: queueAuthOf(config),
    tls: config.ingestQueueTlsCa === undefined && config.ingestQueueTlsCert === undefined
      ? undefined : { caFile: config.ingestQueueTlsCa, certFile: config.ingestQueueTlsCert, keyFile: config.ingestQueueTlsKey },
  };
}

function queueAuthOf(config: ServiceConfig) {
  if (config.ingestQueueUser !== undefined && config.ingestQueuePassword !== undefined) return { kind: 'password', user: config.ingestQueueUser, password: config.ingestQueuePassword } as const;
  if (config.ingestQueueToken !== undefined) return { kind: 'token', token: config.ingestQueueToken } as const;
  if (config.ingestQueueNkeySeed !== undefined) return { kind: 'nkey', seed: config.ingestQueueNkeySeed.trim() } as const;
  if (config.ingestQueueCreds !== undefined) return { kind: 'creds', file: config.ingestQueueCreds } as const;
  return undefined;
}

/** The keys file kept beside a SQLite database: `data/telematics.db` → `data/telematics.db.keys.json`. */
export function defaultKeysFile(sqliteFile: string): string {
  return join(dirname(sqliteFile), `${basename(sqliteFile)}.keys.json`);
}

/** `2d`, `36h`, `90m`, `45s` or `0` as milliseconds; undefined otherwise. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/.exec(text);
  if (!m) return undefined;
  const value = Number(m[1]);
  if (m[2] === '') return value === 0 ? 0 : undefined;
  return Math.round(value * DURATION_UNITS[m[2]!]!);
}

function formatDurationMs(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return String(ms);
}

/** The D9 thresholds and detection settings as configured. */
export function tripSettingsOf(config: ServiceConfig) {
  return {
    thresholds: {
      movingSpeedKmh: config.tripMovingSpeed, stopMs: config.tripStop, gapMs: config.tripGap,
      minDurationMs: config.tripMinDuration, minDistanceKm: config.tripMinDistance,
    },
    latenessMs: config.tripLateness,
    retentionMs: config.tripRetention * 86_400_000,
    intervalMs: 5000,
  };
}

/** The tracker gateway's settings as configured. */
export function gatewaySettingsOf(config: ServiceConfig) {
  return {
    host: config.gatewayHost,
    listeners: trackerListenersOf(config),
    intake: { retentionMs: config.telemetryRetention * 3_600_000, tripLatenessMs: config.tripLateness },
    movingSpeedKmh: config.tripMovingSpeed,
    loginTimeoutMs: 10_000,
    idleTimeoutMs: config.trackerIdleTimeout,
    commandIntervalMs: 250,
    connections: { total: config.trackerConnections, perAddress: config.trackerConnectionsPerAddress },
  };
}
