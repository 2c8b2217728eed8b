/**
 * Set-password links: an invitation (a new user) or a reset (an admin's or the operator's, for a
 * person who lost their password). The token is 256 random bits shown once, in the link; only its
 * SHA-256 is kept. A link works once, until it expires, and a newer link of the same user replaces
 * it. Taking one up sets the password, ends the user's sessions and is an audit entry.
 */
import { createHash, randomBytes } from 'node:crypto';
import { errors, ServiceError } from '../domain/errors.js';
import { appendAuditEntries } from '../store/audit-queries.js';
import type { Db } from '../store/connection.js';
import { inTransaction } from '../store/in-transaction.js';
import { claimPasswordLink, findPasswordLink, findUserById, replacePasswordLink, updateUser } from '../store/users-queries.js';
import { hashPassword } from '../security/password-hash.js';
import type { UserDeps } from './user-deps.js';
import { checkedPassword } from './user-input.js';

export type LinkPurpose = 'invitation' | 'reset';

export interface IssuedLink {
  /** Goes into the link the person opens (`/console/#password=<token>`), nowhere else. */
  readonly token: string;
  readonly expiresAt: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function issuePasswordLink(db: Db, userId: string, purpose: LinkPurpose, now: number, lifetimeMs: number): Promise<IssuedLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + lifetimeMs;
  await replacePasswordLink(db, { token_hash: sha256(token), user_id: userId, purpose, created_at: now, expires_at: expiresAt });
  return { token, expiresAt };
}

/** What a link is for, without taking it up: the page asks before it shows the form. */
export async function describePasswordLink(deps: Pick<UserDeps, 'store' | 'clock'>, token: unknown): Promise<{ email: string; purpose: string }> {
  const link = typeof token === 'string' && TOKEN.test(token) ? await findPasswordLink(deps.store.db, sha256(token)) : undefined;
  const user = link && link.expires_at > deps.clock.now() ? await findUserById(deps.store.db, link.user_id) : undefined;
  if (!link || !user) throw new ServiceError(errors.passwordLinkGone);
  return { email: user.email, purpose: link.purpose };
}

/** Sets the password of the link's user; 410 when the link is unknown, used or expired. */
export async function takeUpPasswordLink(deps: UserDeps, token: unknown, password: unknown): Promise<{ email: string; companyId: string }> {
  const now = deps.clock.now();
  const link = typeof token === 'string' && TOKEN.test(token) ? await findPasswordLink(deps.store.db, sha256(token)) : undefined;
  const user = link && link.expires_at > now ? await findUserById(deps.store.db, link.user_id) : undefined;
  if (!link || !user) throw new ServiceError(errors.passwordLinkGone);
  const hash = await hashPassword(checkedPassword(password, user.email), deps.users.passwordHashCost);
  await inTransaction(deps.store.db, async (trx) => {
    if (!(await claimPasswordLink(trx, link.token_hash))) throw new ServiceError(errors.passwordLinkGone);
    if (!(await updateUser(trx, user, { password_hash: hash }, now, true))) throw new ServiceError(errors.passwordLinkGone);
    await appendAuditEntries(trx, [{
      companyId: user.company_id, actor: { kind: 'user', id: user.email }, action: 'user.password_set', target: user.email, outcome: 'success', details: { by: link.purpose },
    }], now);
  });
  return { email: user.email, companyId: user.company_id };
}
