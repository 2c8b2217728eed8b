/**
 * Enrolling a second factor: a new secret is kept pending (sealed) and shown once as an
 * `otpauth://` URI; the first code from the app confirms it, and only then does sign-in ask for
 * codes, so a person who scanned nothing is never locked out. Confirming returns ten recovery
 * codes, shown once. Removing the factor takes a current code of the app (a person without the
 * phone signs in with a recovery code and asks an admin for a reset).
 */
import { errors, ServiceError } from '../domain/errors.js';
import { appendAuditEntries } from '../store/audit-queries.js';
import { inTransaction } from '../store/in-transaction.js';
import { findUserById, updateUser, type UserRow } from '../store/users-queries.js';
import { matchTotp, newRecoveryCodes, newTotpSecret, totpUri } from '../security/one-time-codes.js';
import { recoveryCodeHashes } from './sign-in-user.js';
import { openTotpSecret, sealTotpSecret } from './totp-secrets.js';
import type { UserDeps } from './user-deps.js';

async function userOf(deps: Pick<UserDeps, 'store'>, userId: string): Promise<UserRow> {
  const user = await findUserById(deps.store.db, userId);
  if (!user) throw new ServiceError(errors.userNotFound);
  return user;
}

export async function beginTotpEnrolment(deps: UserDeps, userId: string): Promise<{ secret: string; otpauth_uri: string }> {
  const user = await userOf(deps, userId);
  if (user.totp_sealed !== null) throw new ServiceError(errors.totpAlreadyEnrolled);
  const secret = newTotpSecret();
  await updateUser(deps.store.db, user, { totp_pending_sealed: sealTotpSecret(user.id, secret, deps.keyring) }, deps.clock.now(), false);
  return { secret, otpauth_uri: totpUri(secret, deps.users.totpIssuer, user.email) };
}

export async function confirmTotpEnrolment(deps: UserDeps, userId: string, code: unknown): Promise<{ recovery_codes: string[] }> {
  const user = await userOf(deps, userId);
  if (user.totp_sealed !== null) throw new ServiceError(errors.totpAlreadyEnrolled);
  if (user.totp_pending_sealed === null) throw new ServiceError(errors.totpNotStarted);
  const now = deps.clock.now();
  const step = typeof code === 'string' ? matchTotp(openTotpSecret(user.id, user.totp_pending_sealed, deps.keyring), code.trim(), now, null) : undefined;
  if (step === undefined) throw new ServiceError(errors.invalidSecondFactor);
  const codes = newRecoveryCodes();
  await inTransaction(deps.store.db, async (trx) => {
    const changes = { totp_sealed: user.totp_pending_sealed, totp_pending_sealed: null, totp_last_step: step, recovery_hashes: recoveryCodeHashes(codes, deps) };
    if (!(await updateUser(trx, user, changes, now, false))) throw new ServiceError(errors.totpNotStarted);
    await appendAuditEntries(trx, [{ companyId: user.company_id, actor: { kind: 'user', id: user.email }, action: 'user.second_factor_enrolled', target: user.email, outcome: 'success' }], now);
  });
  return { recovery_codes: codes };
}

export async function removeTotp(deps: UserDeps, userId: string, code: unknown): Promise<void> {
  const user = await userOf(deps, userId);
  if (user.totp_sealed === null) return;
  const now = deps.clock.now();
  const step = typeof code === 'string' ? matchTotp(openTotpSecret(user.id, user.totp_sealed, deps.keyring), code.trim(), now, user.totp_last_step) : undefined;
  if (step === undefined) throw new ServiceError(errors.invalidSecondFactor);
  await inTransaction(deps.store.db, async (trx) => {
    if (!(await updateUser(trx, user, { totp_sealed: null, totp_pending_sealed: null, totp_last_step: null, recovery_hashes: '[]' }, now, false))) throw new ServiceError(errors.userNotFound);
    await appendAuditEntries(trx, [{ companyId: user.company_id, actor: { kind: 'user', id: user.email }, action: 'user.second_factor_removed', target: user.email, outcome: 'success' }], now);
  });
}
