/**
 * Operator console sessions: as a company person's (auth/console-sessions.ts), an opaque 256-bit
 * id in an HttpOnly cookie whose SHA-256 is the row, ending at sign-out, when idle, at an absolute
 * end, and at once when the operator's password changes or they are removed. They are another
 * table and another cookie: nothing a company's session holds is ever an operator's.
 */
import type { ConsoleSessionSettings } from '../auth/console-sessions.js';
import { newSessionId, sessionIdHash, SESSION_TOUCH_EVERY_MS } from '../auth/session-ids.js';
import type { AuditDraft } from '../domain/audit-chain.js';
import { errors, ServiceError } from '../domain/errors.js';
import { hashPassword, passwordHashNeedsRefresh, verifyAgainstNothing, verifyPassword } from '../security/password-hash.js';
import { appendAuditEntries } from '../store/audit-queries.js';
import type { Db } from '../store/connection.js';
import {
  deleteOperatorSession, deleteStaleOperatorSessions, findOperatorByEmail, findOperatorById, findOperatorSession,
  insertOperatorSession, refreshOperatorHash, touchOperatorSession,
} from '../store/operators-queries.js';

export interface SignedInOperator {
  readonly id: string;
  readonly email: string;
}

/** Who a sign-in proved, with the version of the row the password was checked against. */
export interface VerifiedOperator extends SignedInOperator {
  readonly version: number;
}

export interface OperatorSession {
  readonly operator: SignedInOperator;
  readonly expiresAt: number;
}


const signInEntry = (email: string, outcome: 'success' | 'failure', details?: Record<string, unknown>): AuditDraft =>
  ({ companyId: null, actor: { kind: 'operator', id: email }, action: 'operator.signed_in', target: email, outcome, ...(details ? { details } : {}) });

/**
 * The operator these are the e-mail and password of, or the catalogue's 401. An unknown e-mail
 * costs a hash and an audit entry too (of nobody: `operator:unknown`, the e-mail not kept) and
 * answers as a wrong password does, so neither the answer nor its time tells who is an operator.
 * Throttling is the route's, per address and per e-mail from it: nothing here locks an account.
 */
export async function verifyOperatorSignIn(db: Db, cost: number, email: string, password: string, now: number): Promise<VerifiedOperator> {
  const operator = await findOperatorByEmail(db, email.toLowerCase());
  if (!operator) {
    await verifyAgainstNothing(password, cost);
    await appendAuditEntries(db, [{ ...signInEntry('unknown', 'failure', { reason: 'unknown e-mail' }), target: null }], now);
    throw new ServiceError(errors.invalidUserCredentials);
  }
  if (!(await verifyPassword(password, operator.password_hash))) {
    await appendAuditEntries(db, [signInEntry(operator.email, 'failure', { reason: 'password' })], now);
    throw new ServiceError(errors.invalidUserCredentials);
  }
  // Guarded by the version: a password replaced meanwhile is not overwritten with this one's hash.
  if (passwordHashNeedsRefresh(operator.password_hash, cost)) await refreshOperatorHash(db, operator.id, operator.version, await hashPassword(password, cost));
  await appendAuditEntries(db, [signInEntry(operator.email, 'success')], now);
  return { id: operator.id, email: operator.email, version: operator.version };
}

/**
 * A session of the version the password was checked against: when the password changed between
 * the check and now, the session is already ended (resolve compares versions).
 */
export async function openOperatorSession(db: Db, operator: VerifiedOperator, now: number, settings: ConsoleSessionSettings): Promise<OperatorSession & { id: string }> {
  await deleteStaleOperatorSessions(db, now, now - settings.idleMs);
  const { id, idHash } = newSessionId();
  const expiresAt = now + settings.maxMs;
  await insertOperatorSession(db, {
    id_hash: idHash, operator_id: operator.id, operator_version: operator.version, created_at: now, last_seen_at: now, expires_at: expiresAt,
  });
  return { id, operator: { id: operator.id, email: operator.email }, expiresAt: Math.min(expiresAt, now + settings.idleMs) };
}

/** The session's operator, or undefined when the id is unknown, ended, or its operator changed or left. */
export async function resolveOperatorSession(db: Db, id: string, now: number, settings: ConsoleSessionSettings): Promise<OperatorSession | undefined> {
  const idHash = sessionIdHash(id);
  if (idHash === undefined) return undefined;
  const session = await findOperatorSession(db, idHash);
  if (!session) return undefined;
  const operator = session.expires_at > now && session.last_seen_at + settings.idleMs > now ? await findOperatorById(db, session.operator_id) : undefined;
  if (!operator || operator.version !== session.operator_version) {
    await deleteOperatorSession(db, idHash);
    return undefined;
  }
  if (now - session.last_seen_at >= SESSION_TOUCH_EVERY_MS) await touchOperatorSession(db, idHash, session.last_seen_at, now);
  return { operator: { id: operator.id, email: operator.email }, expiresAt: Math.min(session.expires_at, now + settings.idleMs) };
}

export async function closeOperatorSession(db: Db, id: string): Promise<void> {
  const idHash = sessionIdHash(id);
  if (idHash !== undefined) await deleteOperatorSession(db, idHash);
}
