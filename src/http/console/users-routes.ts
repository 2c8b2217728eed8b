/**
 * /console/api/users: the company's people, for owners and admins (the `users:manage` scope of
 * their role). Invitations and resets answer the set-password link once; the link's token is
 * in its fragment (`/console/#password=…`), which browsers never send to a server or a log.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { formatIsoWithOffset } from '../../domain/time.js';
import { changeUserRole, inviteUser, listUsers, removeUser, resetUserPassword, type Invitation } from '../../users/manage-users.js';
import type { UserDeps } from '../../users/user-deps.js';
import { managerOf } from './person-of-request.js';

const Body = Type.Unsafe<Readonly<Record<string, unknown>>>({ type: 'object' });
const UserParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** The path of the page that takes a set-password link up; the console makes it absolute. */
export const passwordLinkPath = (token: string): string => `/console/#password=${token}`;

const invitationAnswer = (invitation: Invitation) => ({
  user: invitation.user, link: passwordLinkPath(invitation.link.token), link_expires: formatIsoWithOffset(invitation.link.expiresAt),
});

export function usersRoutes(deps: UserDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/users', async (request) => {
      const { companyId } = managerOf(request);
      return { data: await listUsers(deps, companyId) };
    });

    app.post('/users', { schema: { body: Body } }, async (request, reply) => {
      const { manager, companyId } = managerOf(request);
      return reply.code(201).send(invitationAnswer(await inviteUser(deps, manager, companyId, request.body)));
    });

    app.patch('/users/:id', { schema: { params: UserParams, body: Body } }, async (request) => {
      const { manager, companyId } = managerOf(request);
      return changeUserRole(deps, manager, companyId, request.params.id, request.body);
    });

    app.post('/users/:id/reset-password', { schema: { params: UserParams } }, async (request) => {
      const { manager, companyId } = managerOf(request);
      return invitationAnswer(await resetUserPassword(deps, manager, companyId, request.params.id));
    });

    app.delete('/users/:id', { schema: { params: UserParams } }, async (request, reply) => {
      const { manager, companyId } = managerOf(request);
      await removeUser(deps, manager, companyId, request.params.id);
      return reply.code(204).send();
    });
  };
}
