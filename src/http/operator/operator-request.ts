/** The operator a request behind the operator API's session hook belongs to, and the audit trail's name for them. */
import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../../domain/audit-chain.js';
import type { SignedInOperator } from '../../operators/operator-sessions.js';
import type { RegistryDeps } from '../../registry/registry-entries.js';
import type { AppDeps } from '../app-deps.js';

const OPERATOR = Symbol('operator of the request');
type WithOperator = FastifyRequest & { [OPERATOR]?: SignedInOperator };

export function setOperator(request: FastifyRequest, operator: SignedInOperator): void {
  (request as WithOperator)[OPERATOR] = operator;
}

export function operatorOf(request: FastifyRequest): SignedInOperator {
  const operator = (request as WithOperator)[OPERATOR];
  if (operator === undefined) throw new Error('operator route reached without the operator session hook');
  return operator;
}

export const operatorActor = (request: FastifyRequest): AuditActor => ({ kind: 'operator', id: operatorOf(request).email });

/** The registry's use cases acting as the request's operator. */
export const registryDepsFor = (deps: Pick<AppDeps, 'store' | 'keyring' | 'clock'>, request: FastifyRequest): RegistryDeps => ({
  db: deps.store.db, keyring: () => deps.keyring, now: () => deps.clock.now(), actor: operatorActor(request),
});
