/**
 * The demo's people: one of each role in its first company, with passwords derived from the
 * installation's master key (so `npm start` can print them again on every start, as it does the
 * demo applications' secrets, without keeping them). Invited and taken up through the same use
 * cases as real people, so the audit trail shows how they came to be.
 */
import { ROLES, type Role } from '../domain/roles.js';
import { deriveSecret } from '../security/derived-secrets.js';
import type { Keyring } from '../security/keyring.js';
import { findUserByEmail } from '../store/users-queries.js';
import { listAuditEntries } from '../store/audit-queries.js';
import type { Db } from '../store/connection.js';
import { inviteUser } from '../users/manage-users.js';
import { takeUpPasswordLink } from '../users/password-links.js';
import type { UserDeps } from '../users/user-deps.js';

export interface DemoUser {
  readonly email: string;
  readonly role: Role;
  readonly password: string;
}

export function demoUsers(keyring: Keyring, companyId: string): DemoUser[] {
  return ROLES.map((role) => ({ email: `${role}@${companyId}.example`, role, password: deriveSecret(keyring, `demo:user:${companyId}:${role}`, '').slice(0, 20) }));
}

/**
 * Invites each demo person who does not exist yet and sets their password (a new demo, or one
 * from before people), unless the audit trail says someone removed them: a removed person stays
 * removed. Answers the demo people who exist, for the banner.
 */
export async function seedDemoUsers(deps: UserDeps, companyId: string): Promise<DemoUser[]> {
  const present: DemoUser[] = [];
  for (const user of demoUsers(deps.keyring, companyId)) {
    if (!(await findUserByEmail(deps.store.db, user.email))) {
      if (await wasRemoved(deps.store.db, companyId, 'user.removed', user.email)) continue;
      const { link } = await inviteUser(deps, { kind: 'operator', id: 'demo' }, companyId, { email: user.email, role: user.role });
      await takeUpPasswordLink(deps, link.token, user.password);
    }
    present.push(user);
  }
  return present;
}

/** Whether the chain records that `email` was removed. */
export async function wasRemoved(db: Db, chain: string, action: string, email: string): Promise<boolean> {
  return (await listAuditEntries(db, chain, { action, target: email, limit: 1 })).entries.length > 0;
}
