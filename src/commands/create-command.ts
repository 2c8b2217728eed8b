/**
 * POST /vehicle-command, in D4's order: (token, done by the route) body, vin, command, signature,
 * VIN ownership and ownership type, command availability, confirmation, OEM initiation.
 * A command is registered before the automaker is called, with its deadline, so a crash at any
 * point leaves a row the worker finishes: one left without its status URL is initiated again with
 * the same idempotency key (src/domain/initiation.ts), at worst it ends as `Command timeout.`.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { VehicleCommandAnswer } from '@telematics/contract';
import { allows, parseNameSet } from '../domain/capabilities.js';
import { CONFIRMED_COMMANDS, isKnownCommand } from '../domain/command-catalogue.js';
import { OEM_INITIATE_FAILED, OEM_SEND_FAILED } from '../domain/command-status.js';
import {
  CONFIRMATION_MESSAGES, CONFIRMATION_TTL_MS, generateConfirmationCode, MAX_CONFIRMATION_ATTEMPTS,
} from '../domain/confirmation.js';
import { errors, ServiceError } from '../domain/errors.js';
import { FIRST_POLL_MS } from '../domain/initiation.js';
import { formatSpacedLocal } from '../domain/time.js';
import { isValidVin } from '../domain/vin.js';
import { timeOrderedId } from '../domain/time-ordered-id.js';
import { deviceTakes } from '../domain/trackers.js';
import type { Principal } from '../auth/authenticate-bearer.js';
import type { Clock } from '../domain/clock.js';
import { OemFailure, type ConnectorLookup } from '../domain/oem-connector.js';
import type { Keyring } from '../security/keyring.js';
import { hashSecret, verifySecret } from '../security/secret-hash.js';
import { countWrongCode, listConfirmations, useConfirmation } from '../store/commands/confirm.js';
import { finishCommandRows } from '../store/commands/finish.js';
import { markInitiatedRows, type Initiation } from '../store/commands/initiate.js';
import { insertCommand, insertCommands } from '../store/commands/insert.js';
import { findCommand, type CommandRow } from '../store/commands/read.js';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { batchedRows, batchedRowsInBackground } from '../store/write-batcher.js';
import { findCommandTarget } from '../store/vehicles-queries.js';
import { callerActor, recordAudit } from '../audit/record-audit.js';
import type { CommandSignatures } from './verify-command-signature.js';

export interface CommandServiceDeps {
  readonly store: StoreConnection;
  readonly keyring: Keyring;
  readonly connectors: ConnectorLookup;
  /** How long a command may stay Pending before it ends as `Command timeout.`. */
  readonly commandTimeoutMs: number;
  /** Where a status URL that could not be stored is reported. */
  readonly logger: Pick<Logger, 'error'>;
  /** D4's signature check, with the signatures and opened sign-secrets it keeps. */
  readonly signatures: CommandSignatures;
}

/** Where a creation that answers 502 says why: the request's logger, which carries its id. */
export interface CreationLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The answer's shape is the contract's: clients read the same type. */
export type CreationResponse = VehicleCommandAnswer;

/** Confirmations older than this are not even looked at (their codes expired long ago). */
const CONFIRMATION_LOOKBACK_MS = 24 * 3_600_000;

const codeHashInput = (id: string, code: string) => `confirmation:${id}:${code}`;
const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v !== '';
/**
 * Command ids are UUIDs whose leading bits are the creation time (v7): each insert lands at the
 * right edge of the primary key, and its initiation update finds the row there, instead of each
 * touching a random page of an index that grows with every command. Alternating runs (one
 * launch each): +13 % creations/s on SQLite, +22 % on PostgreSQL, whose own CPU a creation
 * roughly halved (docs/decisions/0022-time-ordered-command-ids.md). The time they reveal is the answer's
 * `created` anyway.
 */
const newCommandId = (now: number) => timeOrderedId(now, randomUUID);

/** A creation request that passed D4's checks up to and including the signature. */
export interface SignedCommandRequest {
  readonly vin: string;
  readonly command: string;
  readonly code: unknown;
}

/**
 * D4's checks that need nothing but the request and the caller: body, vin, command, signature.
 * A replayed `Idempotency-Key` answer must pass them too, so they stand on their own.
 */
export function checkSignedRequest(deps: CommandServiceDeps, principal: Principal, body: unknown, signature: unknown): SignedCommandRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ServiceError(errors.invalidRequest, { reason: 'body must be a JSON object' });
  const { vin, command, code } = body as Record<string, unknown>;
  if (!nonEmptyString(vin)) throw new ServiceError(errors.vinMissing);
  if (!nonEmptyString(command)) throw new ServiceError(errors.commandMissing);
  // The application as authentication read it for this request: no second read.
  deps.signatures.verify(principal, vin, command, signature);
  return { vin, command, code };
}

/** The rest of D4 and the creation itself, for a request `checkSignedRequest` let through. */
export async function createCommand(
  deps: CommandServiceDeps, principal: Principal, request: SignedCommandRequest, clock: Clock, log?: CreationLog,
): Promise<CreationResponse> {
  const db = deps.store.db;
  const now = clock.now();
  const { vin, command, code } = request;
  const companyId = principal.companyId;
  const target = isValidVin(vin)
    ? await cachedRegistryRead(deps.store, `command-target:${companyId}:${vin}`, () => findCommandTarget(db, companyId, vin))
    : undefined;
  if (!target || target.ownership === 'rental') throw new ServiceError(errors.vinNotFound);

  const available = isKnownCommand(command) && target.connector !== null && target.oemCommands !== null && target.planCommands !== null
    && allows(parseNameSet(target.oemCommands), command) && allows(parseNameSet(target.planCommands), command)
    && deviceTakes(target.deviceProtocol, command);
  if (!available) throw new ServiceError(errors.commandUnavailable);

  let record: { id: string; vin: string; command: string; created_at: number };
  if (CONFIRMED_COMMANDS.has(command)) {
    if (code === undefined || code === null) return startConfirmation(deps, principal, target.vin, target.oem, command, now);
    record = await confirm(deps, principal, target.vin, command, code, now);
  } else {
    record = { id: newCommandId(now), vin: target.vin, command, created_at: now };
    const row = {
      id: record.id, application_id: principal.applicationId, company_id: principal.companyId, vin: target.vin, oem: target.oem, command,
      status: 'Pending', detail: '{}', created_at: now, updated_at: now, deadline_at: now + deps.commandTimeoutMs, code_attempts: 0, poll_attempts: 0,
    };
    // Committed (with whatever other requests wrote in the same turn) before the automaker is called;
    // its audit entry beside it, in the same group commit (its own statement, so no wait is added).
    await Promise.all([batchedRows(deps.store, insertCommands, row), recordAudit(deps.store, commandAudit(principal, 'command.created', record, 'Pending'))]);
  }

  const base = { id: record.id, vin: record.vin, command: record.command };
  try {
    const connector = deps.connectors.for({ connector: target.connector!, base_url: target.baseUrl });
    const { statusUrl } = await connector.initiate({ commandId: record.id, vin: record.vin, command: record.command });
    const firstPoll = clock.now() + FIRST_POLL_MS;
    await storeInitiation(deps, { id: record.id, statusUrl, firstPoll });
    return { ...base, status: 'Pending', created: formatSpacedLocal(record.created_at) };
  } catch (error) {
    if (!(error instanceof OemFailure)) throw error;
    const detail = error.kind === 'send' ? OEM_SEND_FAILED : OEM_INITIATE_FAILED;
    // The answer's text is the interface's and says nothing of the cause; the operator's log does
    // (refused connection, timeout, the automaker's status). The cause never holds a URL's secrets.
    log?.warn({ commandId: record.id, vin: record.vin, command: record.command, automaker: target.oem, connector: target.connector, cause: error.message },
      `command answered 502: the automaker ${target.oem} could not start it (${error.message})`);
    const at = clock.now();
    await batchedRows(deps.store, finishCommandRows, { id: record.id, status: 'Error', detail, now: at });
    return { ...base, status: 'Error', detail };
  }
}

/**
 * On PostgreSQL the answer does not wait for the status URL's commit (D6 asks for the automaker's
 * status URL before `Pending`, not for its commit), and what a crash can leave is unchanged: a
 * crash between the automaker's acceptance and that commit leaves a `Pending` command without a
 * status URL, on either database, which the command worker initiates again with the same
 * idempotency key once its initiation began 15 s ago (src/domain/initiation.ts); only the answer
 * comes sooner (before, a client cut off there got no answer, and its retry could send the
 * command again). Unwaited, these writes gather (7.9 rows a statement against 3.0) and commit while the
 * answers go out: creations/s ×1.15 and ×1.19 in two side-by-side runs
 * (docs/decisions/0028-status-url-stored-after-the-answer.md). SQLite's in-process commit is still waited for: not waiting measured
 * ×0.91–0.94 there. A clean stop waits for the writes (roles/start-api.ts). Either way a failed write
 * leaves the command to that repeat, and never fails the request.
 */
function storeInitiation(deps: CommandServiceDeps, initiation: Initiation): Promise<void> {
  return batchedRowsInBackground(deps.store, markInitiatedRows, initiation, (error) => {
    deps.logger.error({ err: error, commandId: initiation.id }, 'a command\'s status URL could not be stored: the command worker initiates it again (same Idempotency-Key) 15 s after it began');
  });
}

async function startConfirmation(deps: CommandServiceDeps, principal: Principal, vin: string, oem: string, command: string, now: number): Promise<CreationResponse> {
  const id = newCommandId(now);
  const code = generateConfirmationCode();
  await insertCommand(deps.store.db, {
    id, application_id: principal.applicationId, company_id: principal.companyId, vin, oem, command, status: 'Confirmation',
    detail: '{}', created_at: now, updated_at: now, code_hash: hashSecret(codeHashInput(id, code), deps.keyring.master),
    code_expires_at: now + CONFIRMATION_TTL_MS, code_attempts: 0, poll_attempts: 0,
  });
  await recordAudit(deps.store, commandAudit(principal, 'command.confirmation_requested', { id, vin, command }, 'Confirmation'));
  return { id, vin, command, status: 'Confirmation', code, message: CONFIRMATION_MESSAGES[command]! };
}

/** Who asked for which command on which vehicle; its outcome is recorded where every outcome is written (store/commands/outcome-events.ts). */
function commandAudit(principal: Principal, action: string, command: { id: string; vin: string; command: string }, outcome: string) {
  return { companyId: principal.companyId, actor: callerActor(principal), action, target: command.vin, outcome, details: { command_id: command.id, command: command.command } };
}

/** D5 step 2: exactly one caller with a valid code moves the record to Pending. */
async function confirm(deps: CommandServiceDeps, principal: Principal, vin: string, command: string, code: unknown, now: number): Promise<CommandRow> {
  const db = deps.store.db;
  // A code that is not a string (a number would lose leading zeros) is simply a wrong code.
  const candidates = typeof code === 'string' ? await listConfirmations(db, principal.applicationId, vin, command, now - CONFIRMATION_LOOKBACK_MS) : [];
  const match = candidates.find((c) => verifySecret(codeHashInput(c.id, code as string), c.code_hash!, deps.keyring.master));
  if (!match) {
    await countWrongCode(db, principal.applicationId, vin, command);
    throw new ServiceError(errors.confirmationInvalid);
  }
  if (match.code_used_at !== null) throw new ServiceError(errors.confirmationUsed);
  if (await useConfirmation(db, match.id, now, MAX_CONFIRMATION_ATTEMPTS, now + deps.commandTimeoutMs)) {
    await recordAudit(deps.store, commandAudit(principal, 'command.confirmed', { id: match.id, vin, command }, 'Pending'));
    return (await findCommand(db, match.id))!;
  }
  const after = await findCommand(db, match.id);
  throw new ServiceError(after?.code_used_at !== null && after?.code_used_at !== undefined ? errors.confirmationUsed : errors.confirmationInvalid);
}
