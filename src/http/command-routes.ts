import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  CommandHistoryPage, CommandHistoryQuery, CommandParams, CommandStatus, creationStatusCode, VehicleCommandCreated, VehicleCommandFailed, VehicleCommandHeaders, VehicleCommandRequest,
  VehicleCommandHeadersShape,
} from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import type { CommandServiceDeps } from '../commands/create-command.js';
import { createCommandIdempotently } from '../commands/idempotent-creation.js';
import { FinishedCommands } from '../commands/finished-commands.js';
import { readCommand } from '../commands/read-command.js';
import { CommandSignatures } from '../commands/verify-command-signature.js';
import { listCommands } from '../commands/list-commands.js';
import { principalOf } from './authenticate-hook.js';
import type { Clock } from '../domain/clock.js';
import { AUTH_ERRORS, bearerSecurity, documentedAs, errorResponses, JSON_BODY_ERRORS, PATH_ERRORS } from './schemas.js';
import { Type } from 'typebox';
import type { RequestLimits } from './rate-limits.js';

/** The 502 answer is a command, not an error body; its `detail` is one of these. */
const commandStartFailures = 'The automaker could not start the command; the command is kept with status Error and `detail`:\n'
  + [errors.oemSendFailed, errors.oemInitiateFailed].map((e) => `- \`${e.code}\`: \`${e.text}\``).join('\n');

/**
 * POST /vehicle-command, GET /vehicle-command/{command_id} and GET /vehicle-commands; behind the
 * authentication hook. The routes keep what they learn (accepted signatures, ended commands' answers).
 */
export function commandRoutes(deps: Omit<CommandServiceDeps, 'signatures'>, clock: Clock, limits: RequestLimits): FastifyPluginAsync {
  const commands: CommandServiceDeps = {
    store: deps.store, keyring: deps.keyring, connectors: deps.connectors, commandTimeoutMs: deps.commandTimeoutMs, logger: deps.logger,
    signatures: new CommandSignatures(deps.keyring),
  };
  const finished = new FinishedCommands();
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/vehicle-command', {
      bodyLimit: 16 * 1024,
      config: {
        swaggerTransform: documentedAs({
          body: Type.Ref('VehicleCommandRequest'), headers: VehicleCommandHeadersShape,
          response: { 200: Type.Ref('CommandCreated'), 502: Type.Ref('CommandStartFailed', { description: commandStartFailures }) },
        }),
      },
      schema: {
        operationId: 'createVehicleCommand',
        summary: 'Send a remote command to one vehicle',
        description: 'Signed with X-Signature (docs/commands.md). Ignition commands need two steps: the first answers status Confirmation with a code; send the same vin and command again with that code.',
        tags: ['commands'],
        security: bearerSecurity,
        headers: VehicleCommandHeaders,
        body: VehicleCommandRequest,
        response: {
          200: VehicleCommandCreated,
          ...errorResponses(JSON_BODY_ERRORS, AUTH_ERRORS, 'vinMissing', 'commandMissing', 'confirmationInvalid', 'idempotencyKeyInvalid',
            'signSecretNotFound', 'signatureInvalid', 'vinNotFound', 'commandUnavailable', 'confirmationUsed', 'idempotencyKeyInFlight',
            'idempotencyKeyReused', 'rateLimited'),
          502: VehicleCommandFailed,
        },
      },
    }, async (request, reply) => {
      const principal = principalOf(request);
      await limits.commandPerApplication.take(principal.applicationId, clock.now());
      const result = await createCommandIdempotently(commands, principal, request.body, request.headers['x-signature'], clock, request.headers['idempotency-key'], request.log);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(creationStatusCode(result.body)).send(result.body);
    });

    const missingId = async () => { throw new ServiceError(errors.commandIdMissing); };
    app.get('/vehicle-command', { schema: { hide: true } }, missingId);
    app.get('/vehicle-command/', { schema: { hide: true } }, missingId);

    app.get('/vehicle-command/:command_id', {
      config: { swaggerTransform: documentedAs({ response: { 200: Type.Ref('CommandStatus') } }) },
      schema: {
        operationId: 'getVehicleCommand',
        summary: 'Read a command\'s status',
        description: 'A command this application created, with its status and detail; poll it until the status is final, or follow its command event. '
          + 'Another application\'s command answers 403.',
        tags: ['commands'],
        security: bearerSecurity,
        params: CommandParams,
        response: {
          200: CommandStatus,
          ...errorResponses(AUTH_ERRORS, PATH_ERRORS, 'commandIdMissing', 'accessDenied', 'commandNotFound'),
        },
      },
    }, async (request) => readCommand(deps.store.db, finished, principalOf(request), request.params.command_id));

    app.get('/vehicle-commands', {
      schema: {
        operationId: 'listVehicleCommands',
        summary: "List the application's commands",
        description: 'The commands this application created, newest first, each as GET /vehicle-command/{command_id} reads it plus its creation time. '
          + 'Pass next_cursor as `before` for older ones. An addition to the interface (docs/commands.md).',
        tags: ['commands'],
        security: bearerSecurity,
        querystring: CommandHistoryQuery,
        response: { 200: CommandHistoryPage, ...errorResponses(AUTH_ERRORS, 'eventVinInvalid', 'commandLimitInvalid', 'commandCursorInvalid', 'invalidRequest') },
      },
    }, async (request) => listCommands(deps.store.db, principalOf(request).applicationId, request.query));
  };
}
