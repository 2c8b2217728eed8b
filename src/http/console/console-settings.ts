/** What the console needs beyond the API's dependencies; the console is served when these are given. */
import type { ConsoleSessionSettings } from '../../auth/console-sessions.js';
import type { Basemap } from '../../domain/basemap.js';
import type { OidcSettings } from '../../users/oidc-sign-in.js';
import { DEFAULT_USER_SETTINGS, type UserDeps, type UserSettings } from '../../users/user-deps.js';

export interface ConsoleSettings {
  readonly sessions: ConsoleSessionSettings;
  readonly basemap: Basemap | null;
  /** The people who sign in; DEFAULT_USER_SETTINGS when left out. */
  readonly users?: UserSettings;
  /** The built console (packages/console/dist); found beside the service when absent. */
  readonly distDir?: string;
  /** Single sign-on with an OpenID provider; off when absent. */
  readonly oidc?: OidcSettings;
}

/** The people's use cases' dependencies, from the API's and the console's. */
export const userDepsOf = (deps: Pick<UserDeps, 'store' | 'keyring' | 'clock'>, settings: ConsoleSettings): UserDeps =>
  ({ store: deps.store, keyring: deps.keyring, clock: deps.clock, users: settings.users ?? DEFAULT_USER_SETTINGS });
