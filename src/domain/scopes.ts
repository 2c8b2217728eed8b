/**
 * Scoped credentials: the scopes, an application's set of them as a bitmask (the
 * bearer check compares one number per request, nothing allocated), and which scope each route
 * behind the bearer token requires. Pure; the names are the contract's.
 */
import { ALL_SCOPES_TEXT, isKnownScope, SCOPES, type Scope } from '@telematics/contract';

export { ALL_SCOPES_TEXT, isKnownScope, SCOPES, type Scope };

/** An application's scopes: bit i is SCOPES[i]. */
export type ScopeMask = number;

const BIT: Readonly<Record<Scope, number>> = Object.freeze(Object.fromEntries(SCOPES.map((s, i) => [s, 1 << i])) as Record<Scope, number>);

export const EVERY_SCOPE: ScopeMask = (1 << SCOPES.length) - 1;

export function scopeBit(scope: Scope): ScopeMask {
  return BIT[scope];
}

export function hasScope(mask: ScopeMask, scope: Scope): boolean {
  return (mask & BIT[scope]) !== 0;
}

/** An operator's or the fleet file's list: `*` alone, or known names. Unknown names are returned, not thrown. */
export function readScopeList(names: readonly string[]): { scopes: Scope[] | '*'; unknown: string[] } {
  if (names.length === 1 && names[0] === ALL_SCOPES_TEXT) return { scopes: '*', unknown: [] };
  const unknown = names.filter((n) => !isKnownScope(n));
  const scopes = SCOPES.filter((s) => names.includes(s));
  return { scopes, unknown };
}

/** The problem with a list of scope names, in one line, or undefined when it holds. */
export function scopeListProblem(names: readonly string[]): string | undefined {
  if (names.length === 0) return `must name at least one scope, or be "*" (scopes: ${SCOPES.join(', ')})`;
  if (names.includes(ALL_SCOPES_TEXT) && names.length > 1) return '"*" stands alone: it means every scope';
  const { unknown } = readScopeList(names);
  if (unknown.length > 0) return `unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => JSON.stringify(n)).join(', ')} (scopes: ${SCOPES.join(', ')})`;
  return undefined;
}

/** The stored column's text: `*` or the names space-separated, in catalogue order. */
export function scopesText(scopes: readonly Scope[] | '*'): string {
  return scopes === '*' ? ALL_SCOPES_TEXT : SCOPES.filter((s) => scopes.includes(s)).join(' ');
}

const MASK_OF_TEXT = new Map<string, ScopeMask>();

/** The stored column as a mask; names it does not know (from a newer version) give nothing. Memoised: few distinct texts exist. */
export function scopeMaskOf(text: string): ScopeMask {
  let mask = MASK_OF_TEXT.get(text);
  if (mask !== undefined) return mask;
  mask = 0;
  for (const name of text.split(/\s+/)) {
    if (name === ALL_SCOPES_TEXT) mask = EVERY_SCOPE;
    else if (isKnownScope(name)) mask |= BIT[name];
  }
  if (MASK_OF_TEXT.size < 1024) MASK_OF_TEXT.set(text, mask);
  return mask;
}

/** The token's `scope` claim (RFC 9068): the names space-separated, `*` written out. */
export function scopeClaimOf(mask: ScopeMask): string {
  return SCOPES.filter((s) => (mask & BIT[s]) !== 0).join(' ');
}

/**
 * The scope each route behind the bearer token requires, by method and path as registered
 * (without the console's `/console/api` prefix). Reads of commands need `commands:read`, sending
 * one `commands:write`; previews of geofences and alert rules are reads. A route missing here
 * fails to register (`scopeOfRoute` throws), so none is left open by accident.
 */
export const ROUTE_SCOPES: Readonly<Record<string, Scope>> = Object.freeze({
  'GET /vehicle': 'vehicles:read',
  'GET /vehicle/:vin': 'vehicles:read',
  'POST /vehicle-data': 'telemetry:read',
  'GET /vehicle-data/latest': 'telemetry:read',
  'POST /vehicle-trips': 'trips:read',
  'POST /vehicle-command': 'commands:write',
  'GET /vehicle-command': 'commands:read',
  'GET /vehicle-command/': 'commands:read',
  'GET /vehicle-command/:command_id': 'commands:read',
  'GET /vehicle-commands': 'commands:read',
  'GET /events': 'events:read',
  'GET /events/stream': 'events:read',
  'POST /webhook-endpoints': 'webhooks:manage',
  'GET /webhook-endpoints': 'webhooks:manage',
  'GET /webhook-endpoints/:id': 'webhooks:manage',
  'DELETE /webhook-endpoints/:id': 'webhooks:manage',
  'GET /webhook-endpoints/:id/attempts': 'webhooks:manage',
  'POST /webhook-endpoints/:id/test': 'webhooks:manage',
  'POST /webhook-endpoints/:id/recover': 'webhooks:manage',
  'POST /webhook-endpoints/:id/rotate-secret': 'webhooks:manage',
  'POST /webhook-endpoints/:id/verify': 'webhooks:manage',
  'GET /geofences': 'geofences:read',
  'GET /geofences/:id': 'geofences:read',
  'POST /geofences/preview': 'geofences:read',
  'POST /geofences': 'geofences:write',
  'PUT /geofences/:id': 'geofences:write',
  'DELETE /geofences/:id': 'geofences:write',
  'GET /alert-rules': 'alerts:read',
  'GET /alert-rules/:id': 'alerts:read',
  'POST /alert-rules/preview': 'alerts:read',
  'POST /alert-rules': 'alerts:write',
  'PUT /alert-rules/:id': 'alerts:write',
  'DELETE /alert-rules/:id': 'alerts:write',
  'GET /audit': 'audit:read',
  // The console's own alert history (GET /console/api/alerts): alert and geofence events.
  'GET /alerts': 'alerts:read',
  // The console's people (/console/api/users): an owner's and an admin's.
  'GET /users': 'users:manage',
  'POST /users': 'users:manage',
  'PATCH /users/:id': 'users:manage',
  'DELETE /users/:id': 'users:manage',
  'POST /users/:id/reset-password': 'users:manage',
  'POST /share-links': 'shares:manage',
  'GET /share-links': 'shares:manage',
  'GET /share-links/:id': 'shares:manage',
  'DELETE /share-links/:id': 'shares:manage',
});

/** The scope a route requires; HEAD is its GET. Throws for a route with none declared. */
export function scopeOfRoute(method: string, path: string): Scope {
  const scope = ROUTE_SCOPES[`${method === 'HEAD' ? 'GET' : method} ${path}`];
  if (scope === undefined) throw new Error(`route ${method} ${path} declares no scope: add it to ROUTE_SCOPES (src/domain/scopes.ts)`);
  return scope;
}
