/**
 * The shapes a caller handles, named. All derive from the generated OpenAPI types, so a change of
 * the service's document shows up here as a compile error rather than a surprise at run time.
 */
import type { components, operations, webhooks } from './generated/api.js';
import type { COMMAND_NAMES, DATAPOINT_NAMES, EVENT_TYPES, TRIP_DATAPOINT_NAMES } from './generated/catalogue.js';

type Schemas = components['schemas'];
type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

export type Vehicle = Schemas['Vehicle'];

/** A name `POST /vehicle-data` accepts. */
export type DatapointName = (typeof DATAPOINT_NAMES)[number];
/** Every datapoint a record may hold, typed (numbers are `number | null`: null when missing or corrected). */
export type VehicleDataRecord = Schemas['VehicleDataRecord'];
/** A record of a query for datapoints `D`: exactly those fields, no others. */
export type VehicleDataRow<D extends DatapointName> = { [K in D]-?: Exclude<VehicleDataRecord[K], undefined> };

/** GET /vehicle-data/latest: a vehicle with the state its newest record implies. */
export type VehicleState = JsonOf<operations['getFleetLatest']['responses'][200]>[number]['state'];
/**
 * A vehicle's newest record: the datapoints the company may read of it (others absent; null when
 * the record lacks one), or null when it never reported.
 */
export interface VehicleLatest {
  readonly vin: string;
  readonly state: VehicleState;
  readonly record: Partial<VehicleDataRecord> | null;
}

export type TripDatapointName = (typeof TRIP_DATAPOINT_NAMES)[number];
export type TripRecord = Schemas['TripRecord'];
export type TripRow<D extends TripDatapointName> = { [K in D]-?: Exclude<TripRecord[K], undefined> };

/** A command the service knows; others are passed through as strings (automakers add their own). */
export type CommandName = (typeof COMMAND_NAMES)[number];

export type CommandConfirmation = Schemas['CommandConfirmation'];
export type CommandPending = Schemas['CommandPending'];
/** What a successful diagnostics command answers (other commands answer their own fields). */
export type CommandResult = Schemas['CommandResult'];
export type CommandStatus = Schemas['CommandStatus'];
/** A command of GET /vehicle-commands: its status plus when it was created. */
export type CommandHistoryPage = JsonOf<operations['listVehicleCommands']['responses'][200]>;
export type CommandHistoryItem = CommandHistoryPage['data'][number];
/** How a command ended. */
export type CommandOutcome =
  | (Omit<CommandStatus, 'status' | 'detail'> & { readonly status: 'Success'; readonly detail: CommandResult })
  | (Omit<CommandStatus, 'status' | 'detail'> & { readonly status: 'Error'; readonly detail: string });

export type EventType = (typeof EVENT_TYPES)[number];
type EventBodies = { [K in keyof webhooks]: JsonOf<NonNullable<webhooks[K]['post']>['requestBody']> };
/** An event as GET /events, the stream and webhooks carry it; narrow it by `type`. */
export type TelematicsEvent<T extends EventType = EventType> = EventBodies[T];

export type EventsPage = Omit<JsonOf<operations['listEvents']['responses'][200]>, 'data'> & { readonly data: TelematicsEvent[] };

type EndpointOperation = operations['getWebhookEndpoint'];
export type WebhookEndpoint = JsonOf<EndpointOperation['responses'][200]>;
export type WebhookEndpointCreated = JsonOf<operations['createWebhookEndpoint']['responses'][201]>;
export type WebhookEndpointCreate = NonNullable<JsonOf<operations['createWebhookEndpoint']['requestBody']>>;
export type WebhookEndpointVerification = JsonOf<operations['verifyWebhookEndpoint']['responses'][200]>;
export type WebhookSecretRotation = JsonOf<operations['rotateWebhookEndpointSecret']['responses'][200]>;
export type WebhookTestDelivery = JsonOf<operations['testWebhookEndpoint']['responses'][200]>;
export type WebhookAttempt = JsonOf<operations['listWebhookAttempts']['responses'][200]>[number];

export type Geofence = Schemas['Geofence'];
/** What POST /geofences and PUT /geofences/{id} take: a Point with radius_m, a Polygon, or a LineString with width_m. */
export type GeofenceBody = Schemas['GeofenceBody'];
export type GeofencesPage = JsonOf<operations['listGeofences']['responses'][200]>;
/** What POST /geofences/preview takes: `geofence` (a body of POST /geofences) or `geofence_id`, with `vins` and `days`. */
export type GeofencePreviewBody = NonNullable<JsonOf<operations['previewGeofence']['requestBody']>>;
export type GeofencePreview = JsonOf<operations['previewGeofence']['responses'][200]>;
export type ShareLink = JsonOf<operations['getShareLink']['responses'][200]>;
/** A new link: a ShareLink with its `url`, shown in this answer only. */
export type CreatedShareLink = JsonOf<operations['createShareLink']['responses'][201]>;
/** What POST /share-links takes: `vin`, and `expires_in` (seconds, 300 to 604800) and `label` if wanted. */
export type ShareLinkRequest = NonNullable<JsonOf<operations['createShareLink']['requestBody']>>;
export type ShareLinksPage = JsonOf<operations['listShareLinks']['responses'][200]>;
export type AlertRule = JsonOf<operations['getAlertRule']['responses'][200]>;
/** What POST /alert-rules and PUT /alert-rules/{id} take: name, kind and that kind's fields. */
export type AlertRuleBody = NonNullable<JsonOf<operations['createAlertRule']['requestBody']>>;
/** What POST /alert-rules/preview takes: `rule` (a body of POST /alert-rules) or `rule_id`, with `vins` and `days`. */
export type AlertRulePreviewBody = NonNullable<JsonOf<operations['previewAlertRule']['requestBody']>>;
export type AlertRulePreview = JsonOf<operations['previewAlertRule']['responses'][200]>;

/** Dates of vehicle-data and trip queries: the service's text formats, or a Date (sent at -03:00). */
export type DateInput = string | Date;

/** What every call may take. */
export interface RequestOptions {
  /** Abort the call (and its retries). */
  readonly signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this call. */
  readonly timeoutMs?: number;
}
