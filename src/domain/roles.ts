/**
 * A company's people and what each role may do. A role is a fixed set of scopes, the same
 * scopes an application's credentials carry, so one check per route serves both (scopes.ts).
 * Managing people is ranked: an owner manages everyone, an admin manages dispatchers and
 * viewers, and nobody changes or removes the last owner. Pure.
 */
import { scopeBit, type Scope, type ScopeMask } from './scopes.js';

export const ROLES = Object.freeze(['owner', 'admin', 'dispatcher', 'viewer'] as const);
export type Role = (typeof ROLES)[number];

export function isRole(text: unknown): text is Role {
  return typeof text === 'string' && (ROLES as readonly string[]).includes(text);
}

const VIEWER: readonly Scope[] = ['vehicles:read', 'telemetry:read', 'trips:read', 'commands:read', 'events:read', 'geofences:read', 'alerts:read'];
// A dispatcher tells a customer where their delivery is: sending commands and sharing a position go together.
const DISPATCHER: readonly Scope[] = [...VIEWER, 'commands:write', 'shares:manage'];
const ADMIN: readonly Scope[] = [...DISPATCHER, 'geofences:write', 'alerts:write', 'webhooks:manage', 'audit:read', 'users:manage'];

const maskOf = (scopes: readonly Scope[]): ScopeMask => scopes.reduce((mask, s) => mask | scopeBit(s), 0);

/** An owner and an admin reach the same routes; they differ in whom they may manage. */
const ROLE_SCOPES: Readonly<Record<Role, ScopeMask>> = Object.freeze({
  owner: maskOf(ADMIN), admin: maskOf(ADMIN), dispatcher: maskOf(DISPATCHER), viewer: maskOf(VIEWER),
});

export function roleScopes(role: Role): ScopeMask {
  return ROLE_SCOPES[role];
}

const RANK: Readonly<Record<Role, number>> = Object.freeze({ owner: 3, admin: 2, dispatcher: 1, viewer: 0 });

/**
 * Whether someone of role `actor` may invite a user as `role`, give a user that role, or act on
 * (re-role, reset, remove) a user who has it: an owner any role; an admin below admin; others none.
 */
export function mayManageRole(actor: Role, role: Role): boolean {
  if (actor === 'owner') return true;
  return actor === 'admin' && RANK[role] < RANK.admin;
}
