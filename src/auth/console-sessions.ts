/**
 * Console sessions (backend-for-frontend): the browser exchanges the application's credentials
 * once, on the server, for an opaque 256-bit id in an HttpOnly cookie; it never holds a secret or
 * a token. A session ends at sign-out, after `idleMs` without a request, at `maxMs` after sign-in
 * whatever the activity, and at once when the application is disabled, deleted or its secrets
 * rotated (checked on every request, as bearer tokens are).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { findApplicationById } from '../store/applications-queries.js';
import {
  deleteConsoleSession, deleteStaleConsoleSessions, findConsoleSession, insertConsoleSession, touchConsoleSession,
} from '../store/console-sessions-queries.js';
import type { Keyring } from '../security/keyring.js';
import type { Principal } from './authenticate-bearer.js';
import { verifyClientCredentials } from './exchange-client-credentials.js';

export interface ConsoleSessionSettings {
  readonly idleMs: number;
  readonly maxMs: number;
}

export const DEFAULT_CONSOLE_SESSIONS: ConsoleSessionSettings = Object.freeze({ idleMs: 30 * 60_000, maxMs: 12 * 3_600_000 });

/** Activity is written at most this often per session: a request is not a write. */
const TOUCH_EVERY_MS = 60_000;

export interface OpenedSession {
  /** Goes to the cookie, nowhere else. */
  readonly id: string;
  readonly principal: Principal;
  readonly expiresAt: number;
}

export interface ResolvedSession {
  readonly principal: Principal;
  readonly expiresAt: number;
}

const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

const principalOf = (app: { id: string; client_id: string; company_id: string; sign_secret_sealed: string | null }): Principal => ({
  applicationId: app.id, clientId: app.client_id, companyId: app.company_id, signSecretSealed: app.sign_secret_sealed,
});

export async function openConsoleSession(
  store: StoreConnection, keyring: Keyring, clientId: string, clientSecret: string, now: number, settings: ConsoleSessionSettings,
): Promise<OpenedSession> {
  const app = await verifyClientCredentials(store.db, keyring, clientId, clientSecret);
  // Sign-ins are rare: each one sweeps what has ended, so the table holds live sessions only.
  await deleteStaleConsoleSessions(store.db, now, now - settings.idleMs);
  const id = randomBytes(32).toString('base64url');
  const expiresAt = now + settings.maxMs;
  await insertConsoleSession(store.db, {
    id_hash: hashOf(id), application_id: app.id, credentials_version: app.credentials_version, created_at: now, last_seen_at: now, expires_at: expiresAt,
  });
  return { id, principal: principalOf(app), expiresAt };
}

/** The session's caller, or undefined when the id is unknown, ended, or its application may no longer call. */
export async function resolveConsoleSession(store: StoreConnection, id: string, now: number, settings: ConsoleSessionSettings): Promise<ResolvedSession | undefined> {
  if (!SESSION_ID.test(id)) return undefined;
  const idHash = hashOf(id);
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
  if (now - session.last_seen_at >= TOUCH_EVERY_MS) await touchConsoleSession(store.db, idHash, session.last_seen_at, now);
  return { principal: principalOf(app), expiresAt: Math.min(session.expires_at, now + settings.idleMs) };
}

export async function closeConsoleSession(store: StoreConnection, id: string): Promise<void> {
  if (SESSION_ID.test(id)) await deleteConsoleSession(store.db, hashOf(id));
}
