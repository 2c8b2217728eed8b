import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, ServiceError } from '../domain/errors.js';
import type { CommandServiceDeps } from '../commands/create-command.js';
import { createCommandIdempotently } from '../commands/idempotent-creation.js';
import { readCommand } from '../commands/read-command.js';
import { principalOf } from './authenticate-hook.js';
import type { Clock } from '../domain/clock.js';
import { authErrors, bearerSecurity, errorResponse } from './schemas.js';
import type { RequestLimits } from './rate-limits.js';

/** POST /vehicle-command and GET /vehicle-command/{command_id}; behind the authentication hook. */
export function commandRoutes(deps: CommandServiceDeps, clock: Clock, limits: RequestLimits): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/vehicle-command', {
      bodyLimit: 16 * 1024,
      schema: {
        summary: 'Send a remote command to one vehicle',
        description: 'Signed with X-Signature (docs/commands.md). Ignition commands need two steps: the first answers status Confirmation with a code; send the same vin and command again with that code.',
        tags: ['commands'],
        security: bearerSecurity,
        headers: Type.Object({
          'x-signature': Type.Optional(Type.String({ description: 'hex HMAC-SHA256 of {"command":…,"vin":…} with the sign-secret' })),
          'idempotency-key': Type.Optional(Type.String({ description: 'Optional, 1–255 printable ASCII characters: a retry with the same key and request gets the first response (header Idempotent-Replayed: true) and sends nothing new to the automaker; kept 24 h per application' })),
        }),
        body: {
          type: 'object',
          // Types are checked by the service, not the schema: a wrong vin or command must get the
          // interface's exact texts, which only the D4 checks produce.
          description: 'vin (string), command (string), and code (6 digits) for the second step of ignition commands',
          properties: { vin: { description: 'string: the VIN' }, command: { description: 'string: the command name' }, code: { description: 'string of 6 digits' } },
        },
        response: {
          200: { description: 'Created: status Confirmation (with code and message) or Pending (with created)', type: 'object', additionalProperties: true },
          400: errorResponse('Invalid VIN. …, Invalid command. …, Confirmation invalid, or a malformed Idempotency-Key'),
          ...authErrors,
          403: errorResponse('Sign-secret not found. or X-Signature invalid.'),
          404: errorResponse('VIN not found or unauthorized access. or Command not found or unauthorized access.'),
          409: errorResponse('Confirmation already used, or a request with this Idempotency-Key is still being processed'),
          422: errorResponse('Idempotency-Key already used with a different request.'),
          429: errorResponse('Too many command requests from this application (with Retry-After)'),
          502: { description: 'The automaker could not start the command: status Error with detail', type: 'object', additionalProperties: true },
        },
      },
    }, async (request, reply) => {
      const principal = principalOf(request);
      limits.commandPerApplication.take(principal.applicationId, clock.now());
      const result = await createCommandIdempotently(deps, principal, request.body, request.headers['x-signature'], clock, request.headers['idempotency-key']);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(result.status).send(result.body);
    });

    const missingId = async () => { throw new ServiceError(errors.commandIdMissing); };
    app.get('/vehicle-command', { schema: { hide: true } }, missingId);
    app.get('/vehicle-command/', { schema: { hide: true } }, missingId);

    app.get('/vehicle-command/:command_id', {
      schema: {
        summary: 'Read a command\'s status',
        tags: ['commands'],
        security: bearerSecurity,
        params: Type.Object({ command_id: Type.String({ description: 'UUID returned by POST /vehicle-command' }) }),
        response: {
          200: Type.Object({
            id: Type.String(), vin: Type.String(), command: Type.String(),
            status: Type.String({ description: 'Confirmation, Pending, Success or Error' }),
            detail: Type.Unknown({ description: 'The vehicle\'s result object on success, the error text on failure, {} otherwise' }),
            updated: Type.String({ description: 'YYYY-MM-DD HH:MM:SS at -03:00' }),
          }),
          400: errorResponse('Invalid command ID. …'),
          ...authErrors,
          403: errorResponse('Access denied.'),
          404: errorResponse('Command not found.'),
        },
      },
    }, async (request) => readCommand(deps.store.db, principalOf(request), request.params.command_id));
  };
}
