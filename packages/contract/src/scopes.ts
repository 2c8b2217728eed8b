/**
 * Scopes an application's credentials carry: each route behind the bearer token needs
 * exactly one of them, and its token says which it was issued with (the `scope` claim, space
 * separated as RFC 9068). `*` in the fleet file or the CLI means every scope.
 */
export const SCOPES = Object.freeze([
  'vehicles:read',
  'telemetry:read',
  'trips:read',
  'commands:read',
  'commands:write',
  'events:read',
  'webhooks:manage',
  'geofences:read',
  'geofences:write',
  'alerts:read',
  'alerts:write',
  'audit:read',
  // The console's people: inviting, re-roling and removing a company's users (a role's, not an application's, in practice).
  'users:manage',
  // Share links: a vehicle's live position handed to someone without an account, and revoking them.
  'shares:manage',
] as const);

export type Scope = (typeof SCOPES)[number];

/** What an application given no scopes of its own has, and every application that existed before scopes: all of them. */
export const ALL_SCOPES_TEXT = '*';

export function isKnownScope(name: string): name is Scope {
  return (SCOPES as readonly string[]).includes(name);
}
