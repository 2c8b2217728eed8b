/**
 * The demo's operator, who signs in to the operator console (`/operator/`): added through the
 * same use case as `telematics admin operator add`, with a password derived from the
 * installation's master key, so `npm start` prints it again on every start without keeping it.
 */
import { deriveSecret } from '../security/derived-secrets.js';
import type { Keyring } from '../security/keyring.js';
import { addOperator, type OperatorDeps } from '../operators/manage-operators.js';
import { findOperatorByEmail } from '../store/operators-queries.js';
import { SERVICE_CHAIN } from '../domain/audit-chain.js';
import { wasRemoved } from './demo-users.js';

export interface DemoOperator {
  readonly email: string;
  readonly password: string;
}

export const DEMO_OPERATOR_EMAIL = 'operator@demo.example';

export function demoOperator(keyring: Keyring): DemoOperator {
  return { email: DEMO_OPERATOR_EMAIL, password: deriveSecret(keyring, 'demo:operator', '').slice(0, 20) };
}

/**
 * Adds the demo operator unless they exist (a new demo, or one from before the operator console)
 * or the audit trail says someone removed them: a removed operator stays removed. Answers them
 * while they exist.
 */
export async function seedDemoOperator(deps: OperatorDeps, keyring: Keyring): Promise<DemoOperator | undefined> {
  const operator = demoOperator(keyring);
  if (await findOperatorByEmail(deps.db, operator.email)) return operator;
  if (await wasRemoved(deps.db, SERVICE_CHAIN, 'operator.removed', operator.email)) return undefined;
  await addOperator(deps, operator.email, operator.password);
  return operator;
}
