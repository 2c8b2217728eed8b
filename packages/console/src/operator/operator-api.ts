/**
 * The operator console's calls and the shapes it reads (docs/operator.md): the same helper as the
 * company console's, on the operator's own session and API prefix.
 */
import { call, type Method } from '../api.js';

/** `"*"` (every name, those added later too) or the chosen names. */
export type NameSet = '*' | readonly string[];

export interface DeviceProtocol { readonly name: string; readonly id_rule: string; readonly id_example: string }

/** The names the forms offer, as the service answers them at sign-in: the page never spells them itself. */
export interface Choices {
  readonly connectors: readonly string[];
  readonly statuses: readonly string[];
  readonly ownership: readonly string[];
  readonly sim_profiles: readonly string[];
  readonly device_protocols: readonly DeviceProtocol[];
  readonly datapoints: readonly string[];
  readonly commands: readonly string[];
  readonly scopes: readonly string[];
  readonly token_lifetime: { readonly min: number; readonly max: number };
}

export interface OperatorSession {
  readonly operator: { readonly email: string };
  readonly expires: string;
  readonly choices: Choices;
}

export interface Plan { readonly name: string; readonly datapoints: NameSet; readonly commands: NameSet }

export interface Oem {
  readonly name: string;
  readonly connector: string;
  readonly base_url: string | null;
  readonly datapoints: NameSet;
  readonly commands: NameSet;
}

export interface Company { readonly id: string; readonly name: string; readonly plan: string }

export interface Vehicle {
  readonly company: string;
  readonly vin: string;
  readonly plate: string;
  readonly oem: string;
  readonly model: string;
  readonly year: number;
  readonly status: string;
  readonly ownership: string;
  readonly fuel_capacity: number | null;
  readonly sim: { readonly profile: string; readonly telemetry: boolean } | null;
  readonly device: { readonly protocol: string; readonly id: string } | null;
  readonly created_at: string;
}

export interface Application {
  readonly company: string;
  readonly name: string;
  readonly client_id: string;
  readonly enabled: boolean;
  readonly token_lifetime: number;
  /** `*` or scope names, space-separated. */
  readonly scopes: string;
  readonly has_sign_secret: boolean;
  readonly created_at: string;
}

/** What a creation or a rotation issued; a secret not replaced is absent. */
export interface Credentials {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly sign_secret?: string;
}

/** The name the service gives every company's console application, whose client secret is never issued. */
export const CONSOLE_APPLICATION = '.console';

export const OPERATOR_SESSION = '/operator/session';

export const operatorCall = <T>(method: Method, path: string, body?: unknown): Promise<T> => call<T>(method, `/operator/api${path}`, body);

export const listOf = async <T>(path: string): Promise<T[]> => (await operatorCall<{ data: T[] }>('GET', path)).data;

export const segment = encodeURIComponent;
