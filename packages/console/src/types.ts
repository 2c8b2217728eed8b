/** The shapes the console reads; the service's OpenAPI document and docs define them. */
import type { VehicleState } from '@telematics/contract';

export type { VehicleState };

export interface Session {
  /** The person signed in. */
  readonly user: { readonly email: string; readonly role: 'owner' | 'admin' | 'dispatcher' | 'viewer' };
  /** What this session may do (the role's scopes): the page shows only what the server would allow. */
  readonly scopes: readonly string[];
  readonly company: string;
  readonly expires: string;
  /** Whether this session may send commands (its role may; the service signs them). */
  readonly commands: boolean;
  readonly basemap: Basemap | null;
  /** The service's offline threshold: a newest record older than this is not reporting. */
  readonly offline_after_seconds: number;
}

export type Basemap =
  | { readonly kind: 'raster'; readonly tiles: string; readonly attribution: string }
  | { readonly kind: 'pmtiles'; readonly url: string; readonly attribution: string }
  | { readonly kind: 'style'; readonly url: string; readonly attribution: string };

export interface Vehicle {
  readonly vin: string;
  readonly plate: string;
  readonly oem: string;
  readonly model: string;
  readonly year: number;
  readonly status: string;
}

export type DataRecord = Readonly<Record<string, unknown>> & { readonly date_time?: string; readonly flag?: Readonly<Record<string, { value: unknown; flag: string }>> };

export interface VehicleLatest {
  readonly vin: string;
  readonly state: VehicleState;
  readonly record: DataRecord | null;
}

export interface Trip {
  readonly start_date_time: string;
  readonly end_date_time: string;
  readonly duration: string;
  readonly distance: number | null;
  readonly avg_speed: number | null;
  readonly max_speed: number | null;
  readonly avg_fuel_consumption: number | null;
}

export interface CommandItem {
  readonly id: string;
  readonly vin: string;
  readonly command: string;
  readonly status: 'Confirmation' | 'Pending' | 'Success' | 'Error';
  readonly detail: unknown;
  readonly created?: string;
  readonly updated?: string;
  readonly code?: string;
  readonly message?: string;
}

/** Whether the session may use `scope`: a control the server would refuse is not shown. */
export const sessionMay = (session: Session, scope: string): boolean => session.scopes.includes(scope);
