/** Vehicle registry values of D10. */
export const VEHICLE_STATUSES = Object.freeze(['active', 'inactive'] as const);
export type VehicleStatus = (typeof VEHICLE_STATUSES)[number];

/** `rental` vehicles take no remote commands. */
export const OWNERSHIP_TYPES = Object.freeze(['owned', 'financed', 'leased', 'rental'] as const);
export type OwnershipType = (typeof OWNERSHIP_TYPES)[number];

/** `device`: the OEM's vehicles are reached through their own trackers (D11), not a cloud. */
export const CONNECTOR_KINDS = Object.freeze(['sim', 'http', 'device'] as const);
export type ConnectorKind = (typeof CONNECTOR_KINDS)[number];

export const SIM_PROFILES = Object.freeze(['normal', 'offline', 'moving', 'privacy', 'flaky'] as const);
export type SimProfile = (typeof SIM_PROFILES)[number];

export interface VehicleSimSettings {
  readonly profile: SimProfile;
  readonly telemetry: boolean;
}

/** Token lifetime bounds for an application, seconds. 3600 is the interface default. */
export const DEFAULT_TOKEN_LIFETIME = 3600;
export const MIN_TOKEN_LIFETIME = 60;
export const MAX_TOKEN_LIFETIME = 86_400;

/** Operator-supplied secrets shorter than this are refused (D3). */
export const MIN_SUPPLIED_SECRET_LENGTH = 32;

/**
 * The name of a company's console application, the caller its people act as (users/console-application.ts).
 * It starts with a dot, which no operator-given identifier can.
 */
export const CONSOLE_APPLICATION_NAME = '.console';
