/**
 * Table types for Kysely. Instants are epoch milliseconds in a 64-bit integer on both dialects
 * (compared and indexed as numbers; rendered at -03:00 only at the edge). Booleans are 0/1
 * integers and lists are JSON text, so the two dialects store the same values.
 */
import type { Generated, Kysely } from 'kysely';

export interface PlansTable {
  name: string;
  /** JSON: "*" or a list of datapoint names. */
  datapoints: string;
  /** JSON: "*" or a list of command names. */
  commands: string;
  created_at: number;
  updated_at: number;
}

export interface OemsTable {
  name: string;
  connector: string;
  base_url: string | null;
  /** Keyed hash of the key the OEM presents at POST /ingest/{oem}; never the key itself. */
  ingest_key_hash: string | null;
  datapoints: string;
  commands: string;
  /** JSON of a `device` OEM's tracker settings (migration 0010); null for other connectors. */
  device_settings: string | null;
  created_at: number;
  updated_at: number;
}

export interface CompaniesTable {
  id: string;
  name: string;
  plan: string;
  created_at: number;
  updated_at: number;
}

export interface ApplicationsTable {
  id: string;
  company_id: string;
  name: string;
  client_id: string;
  /** Keyed hash (secret-hash.ts). */
  client_secret_hash: string;
  /** AES-256-GCM box bound to the application id (secret-box.ts); null when none was issued. */
  sign_secret_sealed: string | null;
  token_lifetime: number;
  enabled: number;
  /** Bumped by every credential change; tokens carry it and fail once it moves on. */
  credentials_version: number;
  /** `*` (every scope) or scope names separated by spaces (domain/scopes.ts); migration 0029. */
  scopes: string;
  created_at: number;
  updated_at: number;
}

export interface VehiclesTable {
  vin: string;
  company_id: string;
  plate: string;
  oem: string;
  model: string;
  year: number;
  status: string;
  ownership: string;
  fuel_capacity: number | null;
  /** JSON of the fleet file's `sim` block; null when the vehicle is not simulated. */
  sim: string | null;
  /** The tracker reaching the vehicle (migration 0010): `teltonika` or `osmand`, and its id. */
  device_protocol: string | null;
  device_id: string | null;
  created_at: number;
  updated_at: number;
}

/** One row per (VIN, instant); datapoint columns are named as in the interface. */
export interface TelemetryTable {
  vin: string;
  ts: number;
  speed: number | null;
  latitude: number | null;
  longitude: number | null;
  heading: number | null;
  rpm: number | null;
  odometer: number | null;
  fuel_level: number | null;
  range: number | null;
  left_front_tire_pressure: number | null;
  right_front_tire_pressure: number | null;
  left_rear_tire_pressure: number | null;
  right_rear_tire_pressure: number | null;
  oil_level: number | null;
  engine_cooling_temperature: number | null;
  lv_battery_voltage: number | null;
  hv_battery_voltage: number | null;
  hv_battery_soc: number | null;
  hv_battery_charging_status: string | null;
  seat_belt_status: string | null;
  event: string | null;
  /** JSON object of flag entries; null when nothing was corrected. */
  flag: string | null;
  received_at: number;
  /**
   * Estimated horizontal accuracy of the position, metres (migration 0022); null when the source
   * gave none or the record has no position. Not a datapoint: the geofence evaluator reads it.
   */
  position_accuracy_m: number | null;
}

export interface TripsTable {
  vin: string;
  start_ts: number;
  end_ts: number;
  duration_s: number;
  distance_km: number;
  avg_speed: number;
  max_speed: number;
  start_odometer: number | null;
  end_odometer: number | null;
  avg_fuel_consumption: number | null;
  start_latitude: number | null;
  start_longitude: number | null;
  end_latitude: number | null;
  end_longitude: number | null;
  created_at: number;
}

/** A trip worker alive until `alive_until` (migration 0018). */
export interface TripWorkersTable {
  owner: string;
  alive_until: number;
}

/** One shard of trip detection, held by `owner` until `lease_until` (migration 0018). */
export interface TripShardsTable {
  shard: number;
  owner: string | null;
  lease_until: Generated<number>;
}

export interface TripCursorsTable {
  vin: string;
  processed_until: number;
  rewind_from: number | null;
  /** JSON of the trip detector's state: written and read only by store/trips-queries.ts. */
  state: string;
  /** The instant of the last record fed while a trip is open; null when none is (migration 0009). */
  open_trip_last_ts: number | null;
  updated_at: number;
}

export interface CommandsTable {
  id: string;
  application_id: string;
  company_id: string;
  vin: string;
  oem: string;
  command: string;
  status: string;
  /** JSON: {} while waiting, the vehicle's result object on success, the error text on failure. */
  detail: string;
  created_at: number;
  updated_at: number;
  code_hash: string | null;
  code_expires_at: number | null;
  code_attempts: number;
  code_used_at: number | null;
  status_url: string | null;
  deadline_at: number | null;
  next_poll_at: number | null;
  poll_attempts: number;
  lease_owner: string | null;
  lease_until: number | null;
}

/** A command's exchange with a tracker (migration 0010). */
export interface DeviceCommandsTable {
  command_id: string;
  vin: string;
  device_id: string;
  /** The interface's command name. */
  command: string;
  /** The Codec 12 text sent. */
  text: string;
  created_at: number;
  deadline_at: number;
  /** Why it was never sent (a `COMMAND_ERROR_TEXTS` key), null otherwise. */
  refusal: string | null;
  sent_at: number | null;
  /** The gateway instance that sent it. */
  sent_by: string | null;
  answered_at: number | null;
  answer: string | null;
}

export interface IdempotencyKeysTable {
  application_id: string;
  key: string;
  /** sha256 hex of what the request asked for (vin, command, code). */
  fingerprint: string;
  /** null while the first request with the key is still running. */
  status_code: number | null;
  /** The response body, sealed (secret-box) under the master key. */
  response: string | null;
  created_at: number;
}

/** The event outbox (migration 0008). */
export interface EventsTable {
  seq: Generated<number>;
  id: string;
  /** Assigned in commit order when the events are read; null until then. */
  position: number | null;
  type: string;
  vin: string;
  company_id: string;
  application_id: string | null;
  occurred_at: number;
  /** JSON of the event's data. */
  data: string;
  created_at: number;
}

export interface EventPositionsTable {
  name: string;
  last_position: number;
}

/** One row per vehicle that has reported, kept by the statement storing its records (migration 0020). */
export interface VehicleActivityTable {
  vin: string;
  /** Instant of the vehicle's newest stored record. */
  last_seen: number;
  /** When records of it were last stored, by the storing process's clock. */
  changed_at: number;
}

/** The geofence evaluator's cursor per vehicle (migration 0023). */
export interface WatchCursorsTable {
  vin: string;
  judged_until: number;
  previous_ts: number | null;
  previous_latitude: number | null;
  previous_longitude: number | null;
  previous_accuracy_m: number | null;
  updated_at: number;
  /** Raised by every write of the vehicle's watch state (migration 0027): what a kept copy is checked by. */
  version: Generated<number>;
}

/** A vehicle's state for one geofence, when it is not plain outside (migration 0023). */
export interface GeofenceStatesTable {
  vin: string;
  geofence_id: string;
  /** 1 inside, 0 outside. */
  inside: number;
  pending_since: number | null;
  pending_count: number;
  /** Outside and near: the last position that counted as outside. */
  outside_latitude: number | null;
  outside_longitude: number | null;
  outside_accuracy_m: number | null;
  changed_at: number;
}

/** A company's alert rule (migration 0024). */
export interface AlertRulesTable {
  id: string;
  company_id: string;
  name: string;
  /** overspeed, idling, no_data, low_fuel, low_battery or after_hours. */
  kind: string;
  /** JSON list of VINs; null: every vehicle of the company. */
  vins: string | null;
  threshold: number | null;
  duration_s: number;
  /** JSON `{"time_zone", "weekly"}` as the API takes it; null: none. */
  schedule: string | null;
  cooldown_s: number;
  /** 1 enabled, 0 disabled. */
  enabled: number;
  created_at: number;
  updated_at: number;
}

/** Moved with every change to a company's alert rules (migration 0024). */
export interface AlertRuleRevisionsTable {
  company_id: string;
  revision: number;
}

/** A vehicle's state for one alert rule, when it holds something (migration 0025). */
export interface AlertStatesTable {
  vin: string;
  rule_id: string;
  /** JSON of the judge's AlertState. */
  state: string;
  changed_at: number;
  /** no_data: when a silence held back by the cooldown or the schedule may fire (migration 0026); else null. */
  due_at: number | null;
}

export interface VehiclePresenceTable {
  vin: string;
  /** 1 online, 0 offline. */
  online: number;
  /** Instant of the newest record when last looked at. */
  last_seen: number | null;
  changed_at: number;
}

/** A company's geofence (migration 0021). */
export interface GeofencesTable {
  id: string;
  company_id: string;
  name: string;
  description: string | null;
  /** `circle`, `polygon` or `corridor`. */
  kind: string;
  /** The GeoJSON geometry the API answers, as JSON text. */
  geometry: string;
  radius_m: number | null;
  width_m: number | null;
  /** Bounds, degrees: never smaller than the shape. */
  min_lon: number;
  min_lat: number;
  max_lon: number;
  max_lat: number;
  created_at: number;
  updated_at: number;
}

/** Raised with every change to a company's geofences (migration 0021). */
export interface GeofenceRevisionsTable {
  company_id: string;
  revision: number;
}

/** An application's webhook receiver (migration 0012). */
export interface WebhookEndpointsTable {
  id: string;
  application_id: string;
  company_id: string;
  url: string;
  /** JSON: `"*"` or a list of event types. */
  event_types: string;
  /** `pending_verification`, `enabled` or `disabled`. */
  status: string;
  /** `gone` (410), `failing` (the disable rule), `operator`, or null. */
  disabled_reason: string | null;
  /** AES-256-GCM box of the `whsec_…` secret, bound to the endpoint id. */
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  enabled_at: number | null;
  created_at: number;
  updated_at: number;
  /** Outbox position through which every event has had its first attempt here (migration 0013). */
  stream_position: Generated<number>;
  /** The dispatcher tenure sending first attempts, and until when (a lapsed lease is free). */
  stream_owner: string | null;
  stream_lease_until: number | null;
}

/** One event to one endpoint (migration 0012). */
export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  /** `pending`, `succeeded`, `failed` (retries exhausted, or the endpoint gone) or `dropped` (the event is gone or no longer visible). */
  status: string;
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** One HTTP attempt, for the attempt log (migration 0012): never the receiver's body. */
export interface WebhookAttemptsTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** The event's outbox position (migration 0014); null for a ping or a verification. */
  event_position: number | null;
  /** `auto` (deliveries, recovered ones too), `test` (ping) or `verification`. */
  trigger: string;
  attempted_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** An audit entry (migration 0028; src/domain/audit-chain.ts): never updated nor deleted. */
export interface AuditEntriesTable {
  chain: string;
  seq: number;
  at: number;
  actor_kind: string;
  actor_id: string;
  action: string;
  target: string | null;
  outcome: string;
  details: string;
  prev_hash: string;
  hash: string;
}

/** Each audit chain's last entry, locked while entries are added. */
export interface AuditChainsTable {
  chain: string;
  seq: number;
  hash: string;
}

/** A console sign-in (migration 0016): the browser holds the id, the table only its SHA-256. */
export interface ConsoleSessionsTable {
  id_hash: string;
  application_id: string;
  /** The application's credentials_version at sign-in: a rotation since ends the session. */
  credentials_version: number;
  created_at: number;
  last_seen_at: number;
  /** The absolute end, whatever the activity. */
  expires_at: number;
  /** SHA-256 of the sign-secret proven at sign-in (migration 0017); null: the session sends no commands. */
  sign_proof: string | null;
  /** The person signed in (migration 0030), or null for an application's session; with the user's version at sign-in. */
  user_id: string | null;
  user_version: number | null;
}

/** A company's people (migration 0030). */
export interface UsersTable {
  id: string;
  company_id: string;
  /** Lower-cased; unique across the service. */
  email: string;
  /** owner, admin, dispatcher or viewer (domain/roles.ts). */
  role: string;
  /** scrypt (security/password-hash.ts); null until an invitation or reset link is taken up. */
  password_hash: string | null;
  /** The enrolled TOTP secret, sealed to the user; null without a second factor. */
  totp_sealed: string | null;
  /** A secret being enrolled, until its first code confirms it. */
  totp_pending_sealed: string | null;
  /** The last time step a code matched: none at or before it is accepted again. */
  totp_last_step: number | null;
  /** JSON array of the unused recovery codes' keyed hashes (security/secret-hash.ts). */
  recovery_hashes: string;
  /** The identity provider's `sub` of the person's first single sign-on (migration 0033); null before it, and after a reset. */
  sso_subject: string | null;
  /** Moves on with every change that ends the user's sessions. */
  version: number;
  created_at: number;
  updated_at: number;
}

/** An invitation or a password reset: the SHA-256 of the link's token (migration 0030). */
export interface PasswordLinksTable {
  token_hash: string;
  user_id: string;
  /** `invitation` or `reset`. */
  purpose: string;
  created_at: number;
  expires_at: number;
}

/** A share link (migration 0031): the SHA-256 of its secret, its vehicle and its life. */
export interface ShareLinksTable {
  id: string;
  token_hash: string;
  company_id: string;
  vin: string;
  label: string | null;
  /** `application` or `user`, as the audit trail names them. */
  created_by_kind: string;
  created_by_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

/** Someone who signs in to the operator console (migration 0032); the password as its scrypt hash. */
export interface OperatorsTable {
  id: string;
  email: string;
  password_hash: string;
  /** Moves on with a password change: sessions opened before end. */
  version: number;
  created_at: number;
  updated_at: number;
}

/** An operator console session (migration 0032), by the SHA-256 of its id. */
export interface OperatorSessionsTable {
  id_hash: string;
  operator_id: string;
  operator_version: number;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

/** A named value the in-process simulated automaker keeps across restarts (migration 0019). */
export interface SimulationStateTable {
  name: string;
  value: string;
  updated_at: number;
}

export interface Database {
  plans: PlansTable;
  oems: OemsTable;
  companies: CompaniesTable;
  applications: ApplicationsTable;
  vehicles: VehiclesTable;
  telemetry: TelemetryTable;
  trips: TripsTable;
  trip_cursors: TripCursorsTable;
  trip_workers: TripWorkersTable;
  trip_shards: TripShardsTable;
  commands: CommandsTable;
  device_commands: DeviceCommandsTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  event_positions: EventPositionsTable;
  vehicle_presence: VehiclePresenceTable;
  vehicle_activity: VehicleActivityTable;
  watch_cursors: WatchCursorsTable;
  geofence_states: GeofenceStatesTable;
  alert_states: AlertStatesTable;
  alert_rules: AlertRulesTable;
  alert_rule_revisions: AlertRuleRevisionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  console_sessions: ConsoleSessionsTable;
  simulation_state: SimulationStateTable;
  geofences: GeofencesTable;
  geofence_revisions: GeofenceRevisionsTable;
  audit_entries: AuditEntriesTable;
  audit_chains: AuditChainsTable;
  users: UsersTable;
  password_links: PasswordLinksTable;
  share_links: ShareLinksTable;
  operators: OperatorsTable;
  operator_sessions: OperatorSessionsTable;
}

/** The query builder over these tables: the database, or a transaction on it. */
export type Db = Kysely<Database>;
