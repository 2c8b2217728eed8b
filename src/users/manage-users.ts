/**
 * Managing a company's people: invite, change a role, reset a password, remove. The one who acts
 * is a user of the company (ranked by role, domain/roles.ts) or the operator (any company, any
 * role). A company keeps at least one owner who has set a password (an invited owner does not count). Each change and its audit entry are one transaction;
 * a change of role, a reset or a removal ends the user's sessions at once (the version moves on).
 * Role changes and removals of a company run one after the other (its audit chain's head is
 * locked first), so two owners demoting each other cannot leave the company without one.
 */
import { randomUUID } from 'node:crypto';
import type { AuditActor } from '../domain/audit-chain.js';
import { errors, ServiceError } from '../domain/errors.js';
import { isRole, mayManageRole, ROLES, type Role } from '../domain/roles.js';
import { appendAuditEntries, lockAuditChain } from '../store/audit-queries.js';
import { isUniqueViolation } from '../store/classify-error.js';
import type { Db } from '../store/connection.js';
import { inTransaction } from '../store/in-transaction.js';
import { findCompany } from '../store/registry-queries.js';
import {
  countOtherActiveOwners, deletePasswordLinks, deleteUser, findUserByEmail, findUserById, insertUser, listCompanyUsers, updateUser, type UserRow,
} from '../store/users-queries.js';
import { issuePasswordLink, type IssuedLink } from './password-links.js';
import type { UserDeps } from './user-deps.js';
import { emailOf } from './user-input.js';
import { userResource, type UserResource } from './user-resource.js';

/** Who manages: a signed-in user of the company, or the operator. */
export type UserManager =
  | { readonly kind: 'user'; readonly companyId: string; readonly role: Role; readonly email: string }
  | { readonly kind: 'operator'; readonly id: string };

const actorOf = (manager: UserManager): AuditActor => (manager.kind === 'user' ? { kind: 'user', id: manager.email } : { kind: 'operator', id: manager.id });
const managerRole = (manager: UserManager): Role => (manager.kind === 'user' ? manager.role : 'owner');

function roleOf(value: unknown): Role {
  if (!isRole(value)) throw new ServiceError(errors.userInvalid, { problem: `role must be one of ${ROLES.join(', ')}` });
  return value;
}

function checkMayManage(manager: UserManager, role: Role): void {
  if (!mayManageRole(managerRole(manager), role)) throw new ServiceError(errors.roleNotAllowed, { role });
}

async function userOfCompany(db: Db, companyId: string, id: string): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (!user || user.company_id !== companyId) throw new ServiceError(errors.userNotFound);
  return user;
}

/** The company's own user by e-mail (the operator's CLI names people so). */
export async function findCompanyUserByEmail(deps: Pick<UserDeps, 'store'>, companyId: string, email: string): Promise<UserRow> {
  const user = await findUserByEmail(deps.store.db, email.toLowerCase());
  if (!user || user.company_id !== companyId) throw new ServiceError(errors.userNotFound);
  return user;
}

export async function listUsers(deps: Pick<UserDeps, 'store'>, companyId: string): Promise<UserResource[]> {
  return (await listCompanyUsers(deps.store.db, companyId)).map(userResource);
}

export interface Invitation { readonly user: UserResource; readonly link: IssuedLink }

export async function inviteUser(deps: UserDeps, manager: UserManager, companyId: string, body: { email?: unknown; role?: unknown }): Promise<Invitation> {
  const email = emailOf(body.email);
  const role = roleOf(body.role);
  checkMayManage(manager, role);
  const now = deps.clock.now();
  const row: UserRow = {
    id: randomUUID(), company_id: companyId, email, role, password_hash: null, totp_sealed: null, totp_pending_sealed: null, totp_last_step: null,
    recovery_hashes: '[]', sso_subject: null, version: 1, created_at: now, updated_at: now,
  };
  const link = await inTransaction(deps.store.db, async (trx) => {
    if (!(await findCompany(trx, companyId))) throw new ServiceError(errors.userInvalid, { problem: `unknown company "${companyId}"` });
    if (await findUserByEmail(trx, email)) throw new ServiceError(errors.userExists);
    try {
      await insertUser(trx, row);
    } catch (error) {
      // Invited at the same moment by someone else (e-mails are unique across companies).
      if (isUniqueViolation(error)) throw new ServiceError(errors.userExists);
      throw error;
    }
    const issued = await issuePasswordLink(trx, row.id, 'invitation', now, deps.users.passwordLinkLifetimeMs);
    await appendAuditEntries(trx, [{ companyId, actor: actorOf(manager), action: 'user.invited', target: email, outcome: 'success', details: { role } }], now);
    return issued;
  });
  return { user: userResource(row), link };
}

export async function changeUserRole(deps: UserDeps, manager: UserManager, companyId: string, id: string, body: { role?: unknown }): Promise<UserResource> {
  const role = roleOf(body.role);
  const now = deps.clock.now();
  return inTransaction(deps.store.db, async (trx) => {
    await lockAuditChain(trx, companyId);
    const user = await userOfCompany(trx, companyId, id);
    checkMayManage(manager, user.role as Role);
    checkMayManage(manager, role);
    if (user.role === role) return userResource(user);
    if (user.role === 'owner' && (await countOtherActiveOwners(trx, companyId, user.id)) === 0) throw new ServiceError(errors.lastOwner);
    if (!(await updateUser(trx, user, { role }, now, true))) throw new ServiceError(errors.userNotFound);
    // A link handed out for the old role must not set up an account of the new one (an admin's
    // invitation of a viewer later made owner): the person needs a new link (a reset).
    await deletePasswordLinks(trx, user.id);
    await appendAuditEntries(trx, [{ companyId, actor: actorOf(manager), action: 'user.role_changed', target: user.email, outcome: 'success', details: { from: user.role, to: role } }], now);
    return userResource({ ...user, role });
  });
}

/** Clears the password and the second factor, ends every session and issues a reset link. */
export async function resetUserPassword(deps: UserDeps, manager: UserManager, companyId: string, id: string): Promise<Invitation> {
  const now = deps.clock.now();
  return inTransaction(deps.store.db, async (trx) => {
    const user = await userOfCompany(trx, companyId, id);
    checkMayManage(manager, user.role as Role);
    // A reset starts the person over, their link to the identity provider's account included.
    const cleared = { password_hash: null, totp_sealed: null, totp_pending_sealed: null, recovery_hashes: '[]', sso_subject: null };
    if (!(await updateUser(trx, user, cleared, now, true))) throw new ServiceError(errors.userNotFound);
    const link = await issuePasswordLink(trx, user.id, 'reset', now, deps.users.passwordLinkLifetimeMs);
    await appendAuditEntries(trx, [{ companyId, actor: actorOf(manager), action: 'user.password_reset', target: user.email, outcome: 'success' }], now);
    return { user: userResource({ ...user, ...cleared }), link };
  });
}

export async function removeUser(deps: UserDeps, manager: UserManager, companyId: string, id: string): Promise<void> {
  const now = deps.clock.now();
  await inTransaction(deps.store.db, async (trx) => {
    await lockAuditChain(trx, companyId);
    const user = await userOfCompany(trx, companyId, id);
    checkMayManage(manager, user.role as Role);
    if (user.role === 'owner' && (await countOtherActiveOwners(trx, companyId, user.id)) === 0) throw new ServiceError(errors.lastOwner);
    if (!(await deleteUser(trx, user.id))) throw new ServiceError(errors.userNotFound);
    await appendAuditEntries(trx, [{ companyId, actor: actorOf(manager), action: 'user.removed', target: user.email, outcome: 'success', details: { role: user.role } }], now);
  });
}
