/**
 * The operator's people, managed from the command line only (`telematics admin operator …`): the
 * browser can sign one in but never create one, so taking over a company's console, or the
 * operator console itself, never makes an operator. A password is either given (12 to 256
 * characters, as a company user's) or generated and shown once; only its scrypt hash is kept.
 * Each change is an entry of the service-wide audit chain.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { CLI_OPERATOR } from '../domain/audit-chain.js';
import { RegistryError } from '../registry/manage-applications.js';
import { hashPassword } from '../security/password-hash.js';
import { appendAuditEntries } from '../store/audit-queries.js';
import type { Db } from '../store/connection.js';
import { inTransaction } from '../store/in-transaction.js';
import {
  deleteOperator, findOperatorByEmail, insertOperator, listOperators as listOperatorRows, setOperatorPassword,
} from '../store/operators-queries.js';
import { formatIsoLocal } from '../domain/time.js';
import { checkedPassword, emailOf } from '../users/user-input.js';

export interface OperatorDeps {
  readonly db: Db;
  /** scrypt's cost as log2 N, as for a company's people. */
  readonly passwordHashCost: number;
  readonly now: () => number;
}

export interface OperatorPassword {
  readonly email: string;
  /** Only when generated here: shown once. */
  readonly password?: string;
}

/** 24 characters of the CSPRNG (144 bits): typed once into a password manager. */
const generatedPassword = () => randomBytes(18).toString('base64url');

async function record(db: Db, action: string, email: string, now: number): Promise<void> {
  await appendAuditEntries(db, [{ companyId: null, actor: CLI_OPERATOR, action, target: email, outcome: 'success' }], now);
}

async function passwordHashOf(deps: OperatorDeps, email: string, given: string | undefined): Promise<{ hash: string; shown?: string }> {
  const password = given === undefined ? generatedPassword() : checkedPassword(given, email);
  return { hash: await hashPassword(password, deps.passwordHashCost), ...(given === undefined ? { shown: password } : {}) };
}

export async function addOperator(deps: OperatorDeps, emailText: string, password?: string): Promise<OperatorPassword> {
  const email = emailOf(emailText);
  if (await findOperatorByEmail(deps.db, email)) throw new RegistryError(`operator ${email} already exists`, 'exists');
  const { hash, shown } = await passwordHashOf(deps, email, password);
  const now = deps.now();
  await inTransaction(deps.db, async (trx) => {
    await insertOperator(trx, { id: randomUUID(), email, password_hash: hash, version: 1, created_at: now, updated_at: now });
    await record(trx, 'operator.added', email, now);
  });
  return { email, ...(shown === undefined ? {} : { password: shown }) };
}

/** A new password ends the operator's sessions. */
export async function setOperatorPasswordOf(deps: OperatorDeps, emailText: string, password?: string): Promise<OperatorPassword> {
  const email = emailOf(emailText);
  const operator = await findOperatorByEmail(deps.db, email);
  if (!operator) throw new RegistryError(`unknown operator ${email}`, 'unknown');
  const { hash, shown } = await passwordHashOf(deps, email, password);
  const now = deps.now();
  await inTransaction(deps.db, async (trx) => {
    await setOperatorPassword(trx, operator.id, hash, now);
    await record(trx, 'operator.password_set', email, now);
  });
  return { email, ...(shown === undefined ? {} : { password: shown }) };
}

export async function removeOperator(deps: OperatorDeps, emailText: string): Promise<void> {
  const email = emailOf(emailText);
  const operator = await findOperatorByEmail(deps.db, email);
  if (!operator) throw new RegistryError(`unknown operator ${email}`, 'unknown');
  await inTransaction(deps.db, async (trx) => {
    await deleteOperator(trx, operator.id);
    await record(trx, 'operator.removed', email, deps.now());
  });
}

export async function listOperators(deps: Pick<OperatorDeps, 'db'>): Promise<{ email: string; created_at: string; password_changed_at: string }[]> {
  return (await listOperatorRows(deps.db)).map((o) => ({ email: o.email, created_at: formatIsoLocal(o.created_at), password_changed_at: formatIsoLocal(o.updated_at) }));
}
