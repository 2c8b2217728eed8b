/** @telematics/sdk: the TypeScript client of the vehicle telematics service. */
export { TelematicsClient, type TelematicsClientOptions } from './client.js';
export { AlertRules } from './alert-rules.js';
export { CommandHandle, Commands, type CommandHistoryQuery, type CommandRequest, type CreateOptions, type SendOptions, type WaitOptions } from './commands.js';
export { EventList, Events, EventStream, type EventPageQuery, type EventSelection, type EventStreamOptions } from './events.js';
export { Geofences, type GeofencesQuery } from './geofences.js';
export { ShareLinks, type ShareLinksQuery } from './share-links.js';
export { Trips, type TripsQuery } from './trips.js';
export { VehicleData, type VehicleDataQuery } from './vehicle-data.js';
export { Vehicles } from './vehicles.js';
export { WebhookEndpoints } from './webhook-endpoints.js';
export { Webhooks, type VerifyOptions, type WebhookHeaders } from './webhooks.js';
export { canonicalCommandBody } from './signing.js';
export type { FetchLike } from './transport.js';
export {
  AuthenticationError, BadRequestError, CommandStartError, ConfirmationDeclinedError, ConflictError, ConnectionError, errorCodeOf, GoneError,
  NotFoundError, PermissionError, RateLimitError, ServerError, TelematicsError, TimeoutError, UnprocessableEntityError, WebhookVerificationError,
  type ErrorCode,
} from './errors.js';
export { COMMAND_NAMES, CONFIRMED_COMMANDS, DATAPOINT_NAMES, EVENT_TYPES, TRIP_DATAPOINT_NAMES } from './generated/catalogue.js';
export type * from './types.js';
export type { components, operations, paths, webhooks } from './generated/api.js';
