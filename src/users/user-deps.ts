/** What the people's use cases need. */
import type { Clock } from '../domain/clock.js';
import type { StoreConnection } from '../store/connection.js';
import type { Keyring } from '../security/keyring.js';

export interface UserSettings {
  /** scrypt's cost as log2 N (security/password-hash.ts). */
  readonly passwordHashCost: number;
  /** How long an invitation or a reset link works. */
  readonly passwordLinkLifetimeMs: number;
  /** The issuer an authenticator app shows beside the code. */
  readonly totpIssuer: string;
}

export interface UserDeps {
  readonly store: StoreConnection;
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly users: UserSettings;
}

/** The settings' defaults (config/settings.ts): what the CLI uses, and a console given none. */
export const DEFAULT_USER_SETTINGS: UserSettings = Object.freeze({ passwordHashCost: 17, passwordLinkLifetimeMs: 72 * 3_600_000, totpIssuer: 'Telematics' });
