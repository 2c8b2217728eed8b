/**
 * Operator console sessions: as a company person's (auth/console-sessions.ts), an opaque 256-bit
 * id in an HttpOnly cookie whose SHA-256 is the row, ending at sign-out, when idle, at an absolute
 * end, and at once when the operator's password changes or they are removed. They are another
 * table and another cookie: nothing a company's session holds is ever an operator's.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ConsoleSessionSettings } from '../auth/console-sessions.js';
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

export interface OperatorSession {
  readonly operator: SignedInOperator;
  readonly expiresAt: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
const TOUCH_EVERY_MS = 60_000;

const signInEntry = (email: string, outcome: 'success' | 'failure', details?: Record<string, unknown>): AuditDraft =>
  ({ companyId: null, actor: { kind: 'operator', id: email }, action: 'operator.signed_in', target: email, outcome, ...(details ? { details } : {}) });

/**
 * The operator these are the e-mail and password of, or the catalogue's 401. An unknown e-mail
 * costs a hash too and answers as a wrong password does. Throttling is the route's, per address
 * and per e-mail from it: nothing here locks an account.
 */
export async function verifyOperatorSignIn(db: Db, cost: number, email: string, password: string, now: number): Promise<SignedInOperator> {
  const operator = await findOperatorByEmail(db, email.toLowerCase());
  if (!operator) {
    await verifyAgainstNothing(password, cost);
    throw new ServiceError(errors.invalidUserCredentials);
  }
  if (!(await verifyPassword(password, operator.password_hash))) {
    await appendAuditEntries(db, [signInEntry(operator.email, 'failure', { reason: 'password' })], now);
    throw new ServiceError(errors.invalidUserCredentials);
  }
  if (passwordHashNeedsRefresh(operator.password_hash, cost)) await refreshOperatorHash(db, operator.id, await hashPassword(password, cost));
  await appendAuditEntries(db, [signInEntry(operator.email, 'success')], now);
  return { id: operator.id, email: operator.email };
}

export async function openOperatorSession(db: Db, operator: SignedInOperator, now: number, settings: ConsoleSessionSettings): Promise<OperatorSession & { id: string }> {
  await deleteStaleOperatorSessions(db, now, now - settings.idleMs);
  const row = await findOperatorById(db, operator.id);
  if (!row) throw new ServiceError(errors.invalidUserCredentials);
  const id = randomBytes(32).toString('base64url');
  const expiresAt = now + settings.maxMs;
  await insertOperatorSession(db, {
    id_hash: sha256(id), operator_id: row.id, operator_version: row.version, created_at: now, last_seen_at: now, expires_at: expiresAt,
  });
  return { id, operator, expiresAt: Math.min(expiresAt, now + settings.idleMs) };
}

/** The session's operator, or undefined when the id is unknown, ended, or its operator changed or left. */
export async function resolveOperatorSession(db: Db, id: string, now: number, settings: ConsoleSessionSettings): Promise<OperatorSession | undefined> {
  if (!SESSION_ID.test(id)) return undefined;
  const idHash = sha256(id);
  const session = await findOperatorSession(db, idHash);
  if (!session) return undefined;
  const operator = session.expires_at > now && session.last_seen_at + settings.idleMs > now ? await findOperatorById(db, session.operator_id) : undefined;
  if (!operator || operator.version !== session.operator_version) {
    await deleteOperatorSession(db, idHash);
    return undefined;
  }
  if (now - session.last_seen_at >= TOUCH_EVERY_MS) await touchOperatorSession(db, idHash, session.last_seen_at, now);
  return { operator: { id: operator.id, email: operator.email }, expiresAt: Math.min(session.expires_at, now + settings.idleMs) };
}

export async function closeOperatorSession(db: Db, id: string): Promise<void> {
  if (SESSION_ID.test(id)) await deleteOperatorSession(db, sha256(id));
}
