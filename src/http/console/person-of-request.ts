/** The signed-in person of a console request, for the routes only people may use. */
import type { FastifyRequest } from 'fastify';
import type { SessionUser } from '../../auth/authenticate-bearer.js';
import { errors, ServiceError } from '../../domain/errors.js';
import type { UserManager } from '../../users/manage-users.js';
import { principalOf } from '../authenticate-hook.js';

/** The person: every console session is one's (a caller without one is not signed in). */
export function personOf(request: FastifyRequest): SessionUser & { companyId: string } {
  const principal = principalOf(request);
  if (!principal.user) throw new ServiceError(errors.notAuthenticated);
  return { ...principal.user, companyId: principal.companyId };
}

/** The person as the one who manages the company's people, and that company. */
export function managerOf(request: FastifyRequest): { manager: UserManager; companyId: string } {
  const person = personOf(request);
  return { manager: { kind: 'user', companyId: person.companyId, role: person.role, email: person.email }, companyId: person.companyId };
}
