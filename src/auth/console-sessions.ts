/**
 * Console sessions (backend-for-frontend): a person's sign-in is exchanged, on the server, for an
 * opaque 256-bit id in an HttpOnly cookie; the browser never holds a token or a secret. A session
 * is the company's console application's, with the person's role for scopes, re-read on every
 * request with the person's version. It ends at sign-out, after `idleMs` without a request, at
 * `maxMs` after sign-in whatever the activity, and at once when the person's role or password
 * changes, when they are removed, or when the console application is disabled or its
 * credentials rotated (checked on every request, as bearer tokens are).
 *
 * A role that may send commands gets the SHA-256 of the console application's sign-secret
 * (`sign_proof`); the service signs that session's commands with the current sign-secret only
 * while the two still match, so rotating it stops a session's commands as it stops captured
 * signatures. Applications sign in with POST /token, not here.
 */
import { createHash } from 'node:crypto';
import { newSessionId, sessionIdHash, SESSION_TOUCH_EVERY_MS } from './session-ids.js';
import { errors, ServiceError } from '../domain/errors.js';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { findApplicationById } from '../store/applications-queries.js';
import {
  deleteConsoleSession, deleteStaleConsoleSessions, findConsoleSession, insertConsoleSession, touchConsoleSession,
} from '../store/console-sessions-queries.js';
import type { Keyring } from '../security/keyring.js';
import { openSignSecret, type OpenedSignSecrets } from '../registry/application-secrets.js';
import { hasScope, scopeMaskOf } from '../domain/scopes.js';
import { isRole, roleScopes, type Role } from '../domain/roles.js';
import { findUserById } from '../store/users-queries.js';
import { ensureConsoleApplication } from '../users/console-application.js';
import type { Principal } from './authenticate-bearer.js';

export interface ConsoleSessionSettings {
  readonly idleMs: number;
  readonly maxMs: number;
}


export interface ResolvedSession {
  readonly principal: Principal;
  readonly expiresAt: number;
  /** Whether the service signs this session's commands: the role may send them and the console application's sign-secret is still the one of sign-in. */
  readonly mayCommand: boolean;
}

export interface OpenedSession extends ResolvedSession {
  /** Goes to the cookie, nowhere else. */
  readonly id: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The console application as the caller; a person's session then takes the role's scopes. */
const principalOf = (app: { id: string; client_id: string; company_id: string; sign_secret_sealed: string | null; scopes: string }): Principal => ({
  applicationId: app.id, clientId: app.client_id, companyId: app.company_id, signSecretSealed: app.sign_secret_sealed, scopes: scopeMaskOf(app.scopes),
});

/** The application's current sign-secret, or undefined when it has none (or it cannot be opened). */
function currentSignSecret(app: { id: string; sign_secret_sealed: string | null }, open: (applicationId: string, sealed: string) => string): string | undefined {
  if (app.sign_secret_sealed === null) return undefined;
  try {
    return open(app.id, app.sign_secret_sealed);
  } catch {
    return undefined;
  }
}

/** Stores a new session of `user` on `app` and answers its id, once. */
async function startSession(
  store: StoreConnection, app: { id: string; credentials_version: number }, principal: Principal, signProof: string | null,
  user: { id: string; version: number }, now: number, settings: ConsoleSessionSettings,
): Promise<OpenedSession> {
  // Sign-ins are rare: each one sweeps what has ended, so the table holds live sessions only.
  await deleteStaleConsoleSessions(store.db, now, now - settings.idleMs);
  const { id, idHash } = newSessionId();
  const expiresAt = now + settings.maxMs;
  await insertConsoleSession(store.db, {
    id_hash: idHash, application_id: app.id, credentials_version: app.credentials_version, created_at: now,
    last_seen_at: now, expires_at: expiresAt, sign_proof: signProof, user_id: user.id, user_version: user.version,
  });
  return { id, principal, expiresAt: Math.min(expiresAt, now + settings.idleMs), mayCommand: signProof !== null };
}

/**
 * A person's session: the company's console application is the caller, with the person's role's
 * scopes. A role that may send commands gets the console application's sign proof, so the
 * service signs that person's commands; the person never sees a secret.
 */
export async function openUserConsoleSession(
  store: StoreConnection, keyring: Keyring, user: { id: string; email: string; role: Role; version: number; company_id: string },
  now: number, settings: ConsoleSessionSettings,
): Promise<OpenedSession> {
  const app = await ensureConsoleApplication(store.db, keyring, user.company_id, now);
  // The operator disabled the company's console application: its people's sessions would end on their first request.
  if (app.enabled !== 1) throw new ServiceError(errors.accessDenied);
  const scopes = roleScopes(user.role);
  const current = hasScope(scopes, 'commands:write') ? currentSignSecret(app, (applicationId, sealed) => openSignSecret(applicationId, sealed, keyring)) : undefined;
  const signProof = current === undefined ? null : sha256(current);
  const principal = { ...principalOf(app), scopes, user: { id: user.id, email: user.email, role: user.role } };
  return startSession(store, app, principal, signProof, user, now, settings);
}

/** The session's caller, or undefined when the id is unknown, ended, or its person (or the console application) may no longer call. */
export async function resolveConsoleSession(
  store: StoreConnection, signSecrets: OpenedSignSecrets, id: string, now: number, settings: ConsoleSessionSettings,
): Promise<ResolvedSession | undefined> {
  const idHash = sessionIdHash(id);
  if (idHash === undefined) return undefined;
  const session = await findConsoleSession(store.db, idHash);
  if (!session) return undefined;
  if (session.expires_at <= now || session.last_seen_at + settings.idleMs <= now) {
    await deleteConsoleSession(store.db, idHash);
    return undefined;
  }
  const app = await cachedRegistryRead(store, `application:${session.application_id}`, () => findApplicationById(store.db, session.application_id));
  // Credentials rotated after sign-in end the session too, as they end tokens issued before.
  if (!app || app.enabled !== 1 || app.credentials_version !== session.credentials_version) {
    await deleteConsoleSession(store.db, idHash);
    return undefined;
  }
  // A person's role, password or removal changed since sign-in: the version moved on, the session
  // ends. A session of no person (an application's, from before applications left the console) ends too.
  const user = session.user_id === null ? undefined : await findUserById(store.db, session.user_id);
  if (!user || user.version !== session.user_version || user.company_id !== app.company_id || !isRole(user.role)) {
    await deleteConsoleSession(store.db, idHash);
    return undefined;
  }
  const principal = { ...principalOf(app), scopes: roleScopes(user.role), user: { id: user.id, email: user.email, role: user.role } };
  if (now - session.last_seen_at >= SESSION_TOUCH_EVERY_MS) await touchConsoleSession(store.db, idHash, session.last_seen_at, now);
  const current = session.sign_proof === null ? undefined : currentSignSecret(app, (applicationId, sealed) => signSecrets.open(applicationId, sealed));
  const mayCommand = current !== undefined && sha256(current) === session.sign_proof;
  return { principal, expiresAt: Math.min(session.expires_at, now + settings.idleMs), mayCommand };
}

export async function closeConsoleSession(store: StoreConnection, id: string): Promise<void> {
  const idHash = sessionIdHash(id);
  if (idHash !== undefined) await deleteConsoleSession(store.db, idHash);
}
