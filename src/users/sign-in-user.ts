/**
 * A person's sign-in: e-mail and password, then the second factor when one is enrolled (a TOTP
 * code, or one of the recovery codes, each good once). An unknown e-mail costs a hash and an
 * audit entry too, and answers as a wrong password does, so the answer and its time tell nothing
 * of who exists.
 * Throttling is the caller's (the HTTP route takes from the same limits as POST /token, keyed by
 * the e-mail and the address): nothing here locks an account, so nobody can lock someone else out.
 * A sign-in and a failure of a known person are audit entries of the person's company.
 */
import type { AuditDraft } from '../domain/audit-chain.js';
import { errors, ServiceError } from '../domain/errors.js';
import { appendAuditEntries } from '../store/audit-queries.js';
import { claimRecoveryCode, claimTotpStep, findUserByEmail, updateUser, type UserRow } from '../store/users-queries.js';
import { matchTotp, normalizedRecoveryCode } from '../security/one-time-codes.js';
import { passwordHashNeedsRefresh, hashPassword, verifyAgainstNothing, verifyPassword } from '../security/password-hash.js';
import { hashSecret, verifySecret } from '../security/secret-hash.js';
import { openTotpSecret } from './totp-secrets.js';
import type { UserDeps } from './user-deps.js';

export type SecondFactor = 'none' | 'totp' | 'recovery-code';

const entry = (user: UserRow, outcome: 'success' | 'failure', details: Record<string, unknown>): AuditDraft =>
  ({ companyId: user.company_id, actor: { kind: 'user', id: user.email }, action: 'user.signed_in', target: user.email, outcome, details });

async function failed(deps: UserDeps, user: UserRow, reason: string, answer: ServiceError): Promise<never> {
  await appendAuditEntries(deps.store.db, [entry(user, 'failure', { reason })], deps.clock.now());
  throw answer;
}

/** The user whose password (and second factor) these are; throws the catalogue's 401s otherwise. */
export async function verifyUserSignIn(deps: UserDeps, email: string, password: string, code: string | undefined): Promise<{ user: UserRow; secondFactor: SecondFactor }> {
  const cost = deps.users.passwordHashCost;
  const user = await findUserByEmail(deps.store.db, email.toLowerCase());
  if (!user || user.password_hash === null) {
    await verifyAgainstNothing(password, cost);
    // As a wrong password's, an entry: a known person's in their company's chain (invited, no
    // password yet), nobody's in the service-wide one, keeping no typed e-mail.
    const failure: AuditDraft = user
      ? entry(user, 'failure', { reason: 'no password yet' })
      : { companyId: null, actor: { kind: 'user', id: 'unknown' }, action: 'user.signed_in', target: null, outcome: 'failure', details: { reason: 'unknown e-mail' } };
    await appendAuditEntries(deps.store.db, [failure], deps.clock.now());
    throw new ServiceError(errors.invalidUserCredentials);
  }
  if (!(await verifyPassword(password, user.password_hash))) return failed(deps, user, 'password', new ServiceError(errors.invalidUserCredentials));
  const now = deps.clock.now();
  if (passwordHashNeedsRefresh(user.password_hash, cost)) {
    await updateUser(deps.store.db, user, { password_hash: await hashPassword(password, cost) }, now, false);
  }
  let secondFactor: SecondFactor = 'none';
  if (user.totp_sealed !== null) {
    // The password was right: asking for the code says so, which is why a wrong password never gets this far.
    if (code === undefined || code.trim() === '') throw new ServiceError(errors.secondFactorRequired);
    secondFactor = await checkSecondFactor(deps, user, code.trim(), now);
    if (secondFactor === 'none') return failed(deps, user, 'second factor', new ServiceError(errors.invalidSecondFactor));
  }
  await appendAuditEntries(deps.store.db, [entry(user, 'success', { second_factor: secondFactor })], now);
  return { user, secondFactor };
}

/** `totp` or `recovery-code` when the code holds (and is now spent), `none` when it does not. */
async function checkSecondFactor(deps: UserDeps, user: UserRow, code: string, now: number): Promise<SecondFactor> {
  if (/^\d{6}$/.test(code)) {
    let secret: string;
    try {
      secret = openTotpSecret(user.id, user.totp_sealed!, deps.keyring);
    } catch {
      // Sealed under a master key no longer listed: only a recovery code (or a reset) helps now.
      return 'none';
    }
    const step = matchTotp(secret, code, now, user.totp_last_step);
    return step !== undefined && (await claimTotpStep(deps.store.db, user.id, step)) ? 'totp' : 'none';
  }
  const typed = normalizedRecoveryCode(code);
  if (typed.length !== 10) return 'none';
  const hashes = JSON.parse(user.recovery_hashes) as string[];
  const match = hashes.find((h) => verifySecret(typed, h, deps.keyring.master));
  if (match === undefined) return 'none';
  const remaining = JSON.stringify(hashes.filter((h) => h !== match));
  return (await claimRecoveryCode(deps.store.db, user.id, user.recovery_hashes, remaining)) ? 'recovery-code' : 'none';
}

/** The keyed hashes recovery codes are kept as. */
export const recoveryCodeHashes = (codes: readonly string[], deps: Pick<UserDeps, 'keyring'>): string =>
  JSON.stringify(codes.map((c) => hashSecret(normalizedRecoveryCode(c), deps.keyring.master)));
