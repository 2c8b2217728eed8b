/**
 * The error catalogue: every error a client or operator can see, with its stable code, HTTP status
 * and exact text. Texts quoted from the service interface are exact and must not be edited.
 * Placeholders `{name}` are filled by `errorText`; a client can match an answer's `detail` against
 * the texts of the entries with its status.
 * The service's docs/errors.md documents each entry; its test/domain/errors.test.ts keeps the two in sync.
 */
export interface ErrorEntry {
  readonly code: string;
  readonly status: number;
  readonly text: string;
}

const entry = (code: string, status: number, text: string): ErrorEntry => Object.freeze({ code, status, text });

export const errors = Object.freeze({
  // POST /token (D3)
  tokenFieldsMissing: entry(
    'TLM_TOKEN_FIELDS_MISSING',
    400,
    'client_id and client_secret (or username and password) are required.',
  ),
  invalidClientCredentials: entry('TLM_INVALID_CLIENT_CREDENTIALS', 401, 'Invalid client credentials.'),
  notAcceptable: entry('TLM_NOT_ACCEPTABLE', 406, 'The Accept header must allow application/json.'),

  // Bearer authentication (D2, D3)
  notAuthenticated: entry('TLM_NOT_AUTHENTICATED', 401, 'Not authenticated.'),
  invalidToken: entry('TLM_INVALID_TOKEN', 401, 'Invalid or expired token.'),
  // Scoped credentials: the token's application lacks the route's scope.
  insufficientScope: entry('TLM_INSUFFICIENT_SCOPE', 403, 'Insufficient scope: {scope} is required.'),

  // Vehicles (interface, D10)
  vinNotFound: entry('TLM_VIN_NOT_FOUND', 404, 'VIN not found or unauthorized access.'),

  // POST /vehicle-data (interface, D7)
  tooManyVins: entry('TLM_TOO_MANY_VINS', 400, 'Too many VINs provided. Maximum allowed is 20.'),
  invalidDate: entry('TLM_INVALID_DATE', 400, 'Invalid {field}: use {formats}.'),
  dateInFuture: entry('TLM_DATE_IN_FUTURE', 400, 'start_date or end_date are in the future.'),
  dateOutOfRange: entry('TLM_DATE_OUT_OF_RANGE', 400, 'start_date or end_date are out of the range of 7 days.'),
  startAfterEnd: entry('TLM_START_AFTER_END', 400, 'start_date is greater than end_date.'),
  spanTooLong: entry('TLM_SPAN_TOO_LONG', 400, 'Difference between start_date and end_date cannot exceed 24 hours.'),
  unknownDatapoint: entry('TLM_UNKNOWN_DATAPOINT', 400, 'Unknown datapoint: {name}.'),
  unsupportedDatapoint: entry('TLM_UNSUPPORTED_DATAPOINT', 404, 'Unsupported datapoint for this vehicle.'),
  datapointNotInPlan: entry('TLM_DATAPOINT_NOT_IN_PLAN', 404, 'Datapoint not included in your package plan.'),
  noData: entry('TLM_NO_DATA', 404, 'No data for the given date range: {start} to {end}.'),

  // POST /vehicle-command (interface, D4, D5)
  vinMissing: entry('TLM_COMMAND_VIN_MISSING', 400, 'Invalid VIN. VIN must be a string. At least one VIN is required.'),
  commandMissing: entry('TLM_COMMAND_MISSING', 400, 'Invalid command. Command must be a string. At least one command is required.'),
  commandUnavailable: entry('TLM_COMMAND_UNAVAILABLE', 404, 'Command not found or unauthorized access.'),
  signSecretNotFound: entry('TLM_SIGN_SECRET_NOT_FOUND', 403, 'Sign-secret not found.'),
  signatureInvalid: entry('TLM_SIGNATURE_INVALID', 403, 'X-Signature invalid.'),
  confirmationInvalid: entry('TLM_CONFIRMATION_INVALID', 400, 'Confirmation invalid'),
  confirmationUsed: entry('TLM_CONFIRMATION_USED', 409, 'Confirmation already used'),
  idempotencyKeyInvalid: entry('TLM_IDEMPOTENCY_KEY_INVALID', 400, 'Idempotency-Key must be 1 to 255 printable ASCII characters.'),
  idempotencyKeyInFlight: entry('TLM_IDEMPOTENCY_KEY_IN_FLIGHT', 409, 'A request with this Idempotency-Key is still being processed.'),
  idempotencyKeyReused: entry('TLM_IDEMPOTENCY_KEY_REUSED', 422, 'Idempotency-Key already used with a different request.'),
  // Not error bodies: the `detail` of a creation answered 502 with status Error (D6), which holds the command.
  oemSendFailed: entry('TLM_OEM_SEND_FAILED', 502, 'Failed to send command to the OEM.'),
  oemInitiateFailed: entry('TLM_OEM_INITIATE_FAILED', 502, 'Failed to initiate command with the OEM or retrieve status URL.'),

  // GET /vehicle-command/{command_id} (interface)
  commandIdMissing: entry('TLM_COMMAND_ID_MISSING', 400, 'Invalid command ID. Command ID must be a string. At least one command ID is required.'),
  commandNotFound: entry('TLM_COMMAND_NOT_FOUND', 404, 'Command not found.'),
  accessDenied: entry('TLM_ACCESS_DENIED', 403, 'Access denied.'),

  // GET /vehicle-commands (an addition: an application's command history)
  commandCursorInvalid: entry('TLM_COMMAND_CURSOR_INVALID', 400, 'Invalid cursor: use a next_cursor of this application\'s commands.'),
  commandLimitInvalid: entry('TLM_COMMAND_LIMIT_INVALID', 400, 'limit must be an integer from 1 to 100.'),

  // POST /vehicle-trips (D9)
  tooManyTripVins: entry('TLM_TOO_MANY_TRIP_VINS', 400, 'Too many VINs provided. Maximum allowed is 100.'),

  // POST /ingest/{oem} (OPERATIONS.md)
  invalidIngestKey: entry('TLM_INVALID_INGEST_KEY', 401, 'Invalid ingest key.'),

  // GET /events and /events/stream (D12, OPERATIONS.md "Events")
  eventCursorInvalid: entry('TLM_EVENT_CURSOR_INVALID', 400, 'Invalid cursor: use a next_cursor (or an event stream id) given by this service.'),
  eventCursorExpired: entry('TLM_EVENT_CURSOR_EXPIRED', 410, 'Cursor expired: events after it are no longer kept. Start again without a cursor.'),
  unknownEventType: entry('TLM_UNKNOWN_EVENT_TYPE', 400, 'Unknown event type: {name}.'),
  eventLimitInvalid: entry('TLM_EVENT_LIMIT_INVALID', 400, 'limit must be an integer from 1 to 500.'),
  eventVinInvalid: entry('TLM_EVENT_VIN_INVALID', 400, 'vin must be a 17-character VIN.'),
  tooManyEventStreams: entry('TLM_TOO_MANY_EVENT_STREAMS', 429, 'Too many event streams open for this application (at most {max}).'),

  // GET /audit (an addition: the audit trail)
  auditCursorInvalid: entry('TLM_AUDIT_CURSOR_INVALID', 400, 'Invalid cursor: use a next_cursor of this audit trail.'),
  auditLimitInvalid: entry('TLM_AUDIT_LIMIT_INVALID', 400, 'limit must be an integer from 1 to 500 entries.'),

  // /webhook-endpoints (D12, OPERATIONS.md "Events")
  webhookUrlInvalid: entry('TLM_WEBHOOK_URL_INVALID', 400, 'url must be an absolute https URL of at most 2048 characters, without user name, password or fragment (plain http only on networks the operator allows with --webhook-allow-cidr or TELEMATICS_WEBHOOK_ALLOW_CIDRS).'),
  webhookUrlRefused: entry('TLM_WEBHOOK_URL_REFUSED', 400, 'url points where webhooks may not go: {reason}.'),
  webhookEventTypesInvalid: entry('TLM_WEBHOOK_EVENT_TYPES_INVALID', 400, 'event_types must be a non-empty list of event types, or ["*"].'),
  tooManyWebhookEndpoints: entry('TLM_TOO_MANY_WEBHOOK_ENDPOINTS', 409, 'An application may have at most {max} webhook endpoints.'),
  webhookEndpointNotFound: entry('TLM_WEBHOOK_ENDPOINT_NOT_FOUND', 404, 'Webhook endpoint not found.'),
  webhookRotationInvalid: entry('TLM_WEBHOOK_ROTATION_INVALID', 400, 'previous_secret_expires_in must be an integer number of seconds from 0 to 604800.'),
  webhookEndpointNotEnabled: entry('TLM_WEBHOOK_ENDPOINT_NOT_ENABLED', 409, 'The webhook endpoint is not enabled: verify it first.'),
  webhookEndpointDisabledByOperator: entry('TLM_WEBHOOK_ENDPOINT_DISABLED_BY_OPERATOR', 409, 'The webhook endpoint was disabled by the operator: ask them to enable it.'),
  webhookSinceInvalid: entry('TLM_WEBHOOK_SINCE_INVALID', 400, 'since must be a date within the event retention: {formats}.'),

  // /geofences (D13)
  geofenceInvalid: entry('TLM_GEOFENCE_INVALID', 400, 'Invalid geofence: {problem}.'),
  geofenceNotFound: entry('TLM_GEOFENCE_NOT_FOUND', 404, 'Geofence not found.'),
  tooManyGeofences: entry('TLM_TOO_MANY_GEOFENCES', 409, 'A company may have at most {max} geofences.'),
  geofenceLimitInvalid: entry('TLM_GEOFENCE_LIMIT_INVALID', 400, 'limit must be an integer from 1 to 200.'),
  geofenceCursorInvalid: entry('TLM_GEOFENCE_CURSOR_INVALID', 400, 'Invalid cursor: use a next_cursor of GET /geofences.'),
  // /alert-rules (D13)
  alertRuleInvalid: entry('TLM_ALERT_RULE_INVALID', 400, 'Invalid alert rule: {problem}.'),
  alertRuleNotFound: entry('TLM_ALERT_RULE_NOT_FOUND', 404, 'Alert rule not found.'),
  tooManyAlertRules: entry('TLM_TOO_MANY_ALERT_RULES', 409, 'A company may have at most {max} alert rules.'),

  // The web console (/console/session, /console/api/*)
  consoleCrossSite: entry('TLM_CONSOLE_CROSS_SITE', 403, 'Cross-site request refused: send it from the console.'),
  consoleAlertsLimitInvalid: entry('TLM_CONSOLE_ALERTS_LIMIT_INVALID', 400, 'limit must be an integer from 1 to 100 alerts a page.'),

  // A company's people (/console/session with an e-mail, /console/api/users, /console/api/me/totp, /console/password)
  userSignInFieldsMissing: entry('TLM_USER_SIGN_IN_FIELDS_MISSING', 400, 'email and password are required; code, when given, must be a string.'),
  invalidUserCredentials: entry('TLM_INVALID_USER_CREDENTIALS', 401, 'Invalid e-mail or password.'),
  secondFactorRequired: entry('TLM_SECOND_FACTOR_REQUIRED', 401, 'Enter the 6-digit code of your authenticator app, or a recovery code.'),
  invalidSecondFactor: entry('TLM_INVALID_SECOND_FACTOR', 401, 'Invalid code.'),
  userInvalid: entry('TLM_USER_INVALID', 400, 'Invalid user: {problem}.'),
  userNotFound: entry('TLM_USER_NOT_FOUND', 404, 'User not found.'),
  userExists: entry('TLM_USER_EXISTS', 409, 'A user with this e-mail already exists.'),
  roleNotAllowed: entry('TLM_ROLE_NOT_ALLOWED', 403, 'Your role may not manage a user of role {role}.'),
  lastOwner: entry('TLM_LAST_OWNER', 409, 'A company keeps at least one owner.'),
  passwordInvalid: entry('TLM_PASSWORD_INVALID', 400, 'password must be 12 to 256 characters, and not the e-mail.'),
  passwordLinkGone: entry('TLM_PASSWORD_LINK_GONE', 410, 'This link has expired or was already used: ask for a new one.'),
  totpNotStarted: entry('TLM_TOTP_NOT_STARTED', 409, 'Start enrolment first (POST /console/api/me/totp).'),
  totpAlreadyEnrolled: entry('TLM_TOTP_ALREADY_ENROLLED', 409, 'A second factor is already enrolled: remove it first.'),
  // Share links (docs/share-links.md)
  shareLinkNotFound: entry('TLM_SHARE_LINK_NOT_FOUND', 404, 'Share link not found.'),
  shareLinkGone: entry('TLM_SHARE_LINK_GONE', 410, 'This share link has expired or was revoked.'),
  tooManyShareLinks: entry('TLM_TOO_MANY_SHARE_LINKS', 409, 'A vehicle may have at most {max} open share links.'),

  // The operator console (/operator/session, /operator/api/*: docs/operator-console.md)
  registryEntryInvalid: entry('TLM_REGISTRY_ENTRY_INVALID', 400, 'Invalid entry: {problem}.'),
  registryEntryNotFound: entry('TLM_REGISTRY_ENTRY_NOT_FOUND', 404, 'Not found: {problem}.'),
  registryEntryExists: entry('TLM_REGISTRY_ENTRY_EXISTS', 409, 'Already registered: {problem}.'),

  // Generic request errors (D2)
  malformedJson: entry('TLM_MALFORMED_JSON', 400, 'Malformed JSON body.'),
  malformedHttp: entry('TLM_MALFORMED_HTTP', 400, 'Malformed HTTP request.'),
  requestTimeout: entry('TLM_REQUEST_TIMEOUT', 408, 'The request was not received in time.'),
  headersTooLarge: entry('TLM_HEADERS_TOO_LARGE', 431, 'Request headers are too large.'),
  invalidRequest: entry('TLM_INVALID_REQUEST', 400, 'Invalid request: {reason}.'),
  notFound: entry('TLM_NOT_FOUND', 404, 'Not found.'),
  bodyTooLarge: entry('TLM_BODY_TOO_LARGE', 413, 'Request body is too large.'),
  urlTooLong: entry('TLM_URL_TOO_LONG', 414, 'A path parameter of the URL is too long.'),
  unsupportedMediaType: entry('TLM_UNSUPPORTED_MEDIA_TYPE', 415, 'Unsupported content type. Expected {expected}.'),
  rateLimited: entry('TLM_RATE_LIMITED', 429, 'Too many requests. Retry after {seconds} s.'),
  internal: entry('TLM_INTERNAL', 500, 'Internal server error.'),
  unavailable: entry('TLM_UNAVAILABLE', 503, 'Service temporarily unavailable.'),
});

export type ErrorName = keyof typeof errors;

/** The entry's text with each `{name}` replaced by `params[name]`; unknown placeholders stay visible. */
export function errorText(entry: ErrorEntry, params: Readonly<Record<string, string>> = {}): string {
  return entry.text.replace(/\{(\w+)\}/g, (_, key: string) => params[key] ?? `{${key}}`);
}
