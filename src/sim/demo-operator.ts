/**
 * The demo's operator, who signs in to the operator console (`/operator/`): added through the
 * same use case as `telematics admin operator add`, with a password derived from the
 * installation's master key, so `npm start` prints it again on every start without keeping it.
 */
import { deriveSecret } from '../security/derived-secrets.js';
import type { Keyring } from '../security/keyring.js';
import { addOperator, type OperatorDeps } from '../operators/manage-operators.js';
import { findOperatorByEmail } from '../store/operators-queries.js';

export interface DemoOperator {
  readonly email: string;
  readonly password: string;
}

export const DEMO_OPERATOR_EMAIL = 'operator@demo.example';

export function demoOperator(keyring: Keyring): DemoOperator {
  return { email: DEMO_OPERATOR_EMAIL, password: deriveSecret(keyring, 'demo:operator', '').slice(0, 20) };
}

/** Adds the demo operator unless they exist (a removed one is not brought back while others remain). */
export async function seedDemoOperator(deps: OperatorDeps, keyring: Keyring): Promise<DemoOperator> {
  const operator = demoOperator(keyring);
  if (!(await findOperatorByEmail(deps.db, operator.email))) await addOperator(deps, operator.email, operator.password);
  return operator;
}
