/**
 * Browser session ids, for the console's sessions and the operator console's: 256 random bits in
 * the cookie, only their SHA-256 in the database, so a copy of the table opens no session.
 */
import { createHash, randomBytes } from 'node:crypto';

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** Activity is written at most this often per session: a request is not a write. */
export const SESSION_TOUCH_EVERY_MS = 60_000;

export const sessionIdHashOf = (id: string): string => createHash('sha256').update(id).digest('hex');

export function newSessionId(): { id: string; idHash: string } {
  const id = randomBytes(32).toString('base64url');
  return { id, idHash: sessionIdHashOf(id) };
}

/** The hash a cookie's id is stored as; undefined for text that is no session id. */
export const sessionIdHash = (id: string): string | undefined => (SESSION_ID.test(id) ? sessionIdHashOf(id) : undefined);
