import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  CommandParams, CommandStatus, creationStatusCode, VehicleCommandCreated, VehicleCommandFailed, VehicleCommandHeaders, VehicleCommandRequest,
} from '@telematics/contract';
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
        headers: VehicleCommandHeaders,
        body: VehicleCommandRequest,
        response: {
          200: VehicleCommandCreated,
          400: errorResponse('Invalid VIN. …, Invalid command. …, Confirmation invalid, or a malformed Idempotency-Key'),
          ...authErrors,
          403: errorResponse('Sign-secret not found. or X-Signature invalid.'),
          404: errorResponse('VIN not found or unauthorized access. or Command not found or unauthorized access.'),
          409: errorResponse('Confirmation already used, or a request with this Idempotency-Key is still being processed'),
          422: errorResponse('Idempotency-Key already used with a different request.'),
          429: errorResponse('Too many command requests from this application (with Retry-After)'),
          502: VehicleCommandFailed,
        },
      },
    }, async (request, reply) => {
      const principal = principalOf(request);
      limits.commandPerApplication.take(principal.applicationId, clock.now());
      const result = await createCommandIdempotently(deps, principal, request.body, request.headers['x-signature'], clock, request.headers['idempotency-key']);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(creationStatusCode(result.body)).send(result.body);
    });

    const missingId = async () => { throw new ServiceError(errors.commandIdMissing); };
    app.get('/vehicle-command', { schema: { hide: true } }, missingId);
    app.get('/vehicle-command/', { schema: { hide: true } }, missingId);

    app.get('/vehicle-command/:command_id', {
      schema: {
        summary: 'Read a command\'s status',
        tags: ['commands'],
        security: bearerSecurity,
        params: CommandParams,
        response: {
          200: CommandStatus,
          400: errorResponse('Invalid command ID. …'),
          ...authErrors,
          403: errorResponse('Access denied.'),
          404: errorResponse('Command not found.'),
        },
      },
    }, async (request) => readCommand(deps.store.db, principalOf(request), request.params.command_id));
  };
}
