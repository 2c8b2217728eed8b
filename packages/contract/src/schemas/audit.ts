/** GET /audit: a company's audit trail as its owners and admins read it (docs/audit.md). */
import { Type, type Static } from 'typebox';

export const MAX_AUDIT_PAGE = 500;
export const DEFAULT_AUDIT_PAGE = 100;

export const AuditQuery = Type.Object({
  before: Type.Optional(Type.String({ description: 'A next_cursor of an earlier page: the entries before it (older)' })),
  action: Type.Optional(Type.String({ description: 'One action (`command.created`), or a prefix ending in "." (`command.`)' })),
  actor: Type.Optional(Type.String({ description: 'Only what this actor did: an application\'s client id or a user\'s id' })),
  target: Type.Optional(Type.String({ description: 'Only entries about this target (a VIN, a command or geofence id, …)' })),
  since: Type.Optional(Type.String({ description: 'Entries at or after this instant (the interface\'s date formats)' })),
  until: Type.Optional(Type.String({ description: 'Entries at or before this instant' })),
  limit: Type.Optional(Type.String({ description: `1 to ${MAX_AUDIT_PAGE}, default ${DEFAULT_AUDIT_PAGE}` })),
});
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditEntry = Type.Object({
  seq: Type.Integer({ description: 'Its number in the company\'s chain, from 1' }),
  at: Type.String({ description: 'When, YYYY-MM-DDTHH:MM:SS.sss-03:00' }),
  actor: Type.Object({
    kind: Type.String({ enum: ['application', 'user', 'operator', 'system'] }),
    id: Type.String({ description: 'Client id, user id, operator name or `service`' }),
  }),
  action: Type.String({ description: 'What was done, `<thing>.<act>`: see docs/audit.md for the list' }),
  target: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.String({ description: '`success`, `failure`, or a command\'s status' }),
  details: Type.Object({}, { additionalProperties: true }),
  prev_hash: Type.String({ description: 'The hash of the entry before it (64 zeros for the first)' }),
  hash: Type.String({ description: 'SHA-256 over prev_hash and this entry\'s fields (docs/audit.md)' }),
});
export type AuditEntry = Static<typeof AuditEntry>;

export const AuditPage = Type.Object({
  data: Type.Array(AuditEntry, { description: 'Newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for older entries; null at the first entry' }),
  has_more: Type.Boolean(),
});
export type AuditPage = Static<typeof AuditPage>;
