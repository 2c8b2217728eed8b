/**
 * What a client of the telematics service must agree on with it, and nothing else: no I/O, no
 * Node APIs, no dependency beyond TypeBox, so the service, the SDK and the console share it.
 */
export { errors, errorText, type ErrorEntry, type ErrorName } from './errors.js';
export { DATAPOINTS, DATAPOINT_NAMES, datapointSpec, isKnownDatapoint, type DatapointKind, type DatapointSpec } from './datapoints.js';
export { TRIP_DATAPOINT_NAMES, type TripDatapointName } from './trip-datapoints.js';
export { COMMAND_NAMES, CONFIRMED_COMMANDS, isKnownCommand, type CommandName } from './command-catalogue.js';
export { ALL_SCOPES_TEXT, isKnownScope, SCOPES, type Scope } from './scopes.js';
export { canonicalCommandBody, SIGNATURE_PATTERN } from './command-signature.js';
export {
  ACCEPTED_DATE_FORMATS, createSpacedLocalFormatter, formatDuration, formatIsoLocal, formatIsoWithOffset, formatSpacedLocal, parseInputDate,
  parseRecordInstant, SERVICE_OFFSET_MINUTES, type ParsedInputDate,
} from './time.js';
export { ErrorBody } from './schemas/error-body.js';
export { TokenRequest, TokenResponse } from './schemas/token.js';
export { Vehicle, VehicleParams } from './schemas/vehicle.js';
export { VehicleDataRequest, VehicleDataResponse, type VehicleDataRecord } from './schemas/vehicle-data.js';
export { VehicleTripsRequest, VehicleTripsResponse, type TripRecord } from './schemas/vehicle-trips.js';
export {
  CommandParams, CommandStatus, creationStatusCode, VehicleCommandCreated, VehicleCommandFailed, VehicleCommandHeaders, VehicleCommandRequest,
  type VehicleCommandAnswer, type VehicleCommandFields,
} from './schemas/vehicle-command.js';
export { IngestParams, IngestRequest, IngestResponse, MAX_INGEST_RECORDS } from './schemas/ingest.js';
export { FleetLatest, VEHICLE_STATES, VehicleLatest, type VehicleState } from './schemas/fleet-latest.js';
export {
  CommandHistoryItem, CommandHistoryPage, CommandHistoryQuery, DEFAULT_COMMANDS_PAGE, MAX_COMMANDS_PAGE,
} from './schemas/command-history.js';
export { HealthStatus } from './schemas/health.js';
export {
  DEFAULT_GEOFENCES_PAGE, Geofence, GeofenceBody, GeofenceGeometry, GeofenceLineString, GeofenceParams, GeofencePoint, GeofencePolygon, GeofencesPage,
  GeofencesQuery, GEOFENCE_METRES, MAX_GEOFENCE_DESCRIPTION, MAX_GEOFENCE_NAME, MAX_GEOFENCE_POSITIONS, MAX_GEOFENCES_PAGE,
} from './schemas/geofences.js';
export {
  DEFAULT_EVENTS_PAGE, EVENT_TYPES, EventEnvelope, EventsPage, EventsQuery, EventStreamQuery, isEventType, MAX_EVENTS_PAGE,
  type EventType, type ServiceEvent,
} from './schemas/events.js';
export { AuditEntry, AuditPage, AuditQuery, DEFAULT_AUDIT_PAGE, MAX_AUDIT_PAGE } from './schemas/audit.js';
export {
  CreatedShareLink, DEFAULT_SHARE_LINKS_PAGE, MAX_SHARE_LINK_LABEL, MAX_SHARE_LINKS_PAGE, SHARE_LINK_SECONDS, SHARE_LINK_STATES, SharedPosition, ShareLink,
  ShareLinkParams, ShareLinkRequest, ShareLinksPage, ShareLinksQuery,
} from './schemas/share-links.js';
export { ALERT_RULE_KINDS, AlertRule, AlertRuleParams, AlertRuleRequestShape, SCHEDULE_DAYS } from './schemas/alert-rules.js';
export { EVENT_DATA_SCHEMAS, eventSchema, webhooksSection } from './schemas/event-types.js';
export {
  CommandConfirmationShape, CommandCreatedShape, CommandPendingShape, CommandResultShape, CommandStartFailedShape, CommandStatusShape, TripRecordShape,
  TYPED_SHAPES, VehicleCommandHeadersShape, VehicleCommandRequestShape, VehicleDataRecordShape, VehicleDataRequestShape, VehicleDataResponseShape, VehicleTripsRequestShape,
  VehicleTripsResponseShape,
} from './schemas/typed-shapes.js';
/** The type of a value a schema describes, for readers that take the contract's types only (the console). */
export type { Static } from 'typebox';
