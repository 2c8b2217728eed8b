/**
 * POST /vehicle-command and GET /vehicle-command/{id}: signed creation, the two-step confirmation
 * of ignition commands through a caller's callback, and waiting for the automaker's outcome.
 * Creation is retried only with an Idempotency-Key, so a lost answer never runs a command twice.
 */
import { sleep } from './abort.js';
import { ConfirmationDeclinedError, TelematicsError, TimeoutError } from './errors.js';
import { CONFIRMED_COMMANDS } from './generated/catalogue.js';
import type { CommandSigner } from './signing.js';
import { eachOfPages } from './pages.js';
import type { Transport } from './transport.js';
import type {
  CommandConfirmation, CommandHistoryItem, CommandHistoryPage, CommandName, CommandOutcome, CommandPending, CommandStatus, RequestOptions,
} from './types.js';

export interface CommandRequest {
  readonly vin: string;
  readonly command: CommandName | (string & {});
  /** The 6 digits of a Confirmation answer: the second step of an ignition command. */
  readonly code?: string;
}

export interface CreateOptions extends RequestOptions {
  /** Reused on every retry of this request; a fresh UUID when absent. */
  readonly idempotencyKey?: string;
}

export interface SendOptions extends CreateOptions {
  /**
   * Ignition commands: shown the service's confirmation (its `message` is the Portuguese alert to
   * show the user); answer true to confirm. Declining, or no callback, ends in ConfirmationDeclinedError.
   */
  readonly confirm?: (confirmation: CommandConfirmation) => boolean | Promise<boolean>;
}

export interface WaitOptions {
  /** Give up (TimeoutError) after this long; default 180 s (the service times commands out at 120 s). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** First polling interval, growing ×1.5 to 5 s; default 1 s. */
  readonly intervalMs?: number;
}

const MAX_INTERVAL_MS = 5000;
/** The service's limit on an Idempotency-Key, and what send() adds to it for the second step. */
const MAX_KEY_LENGTH = 255;
const CONFIRM_SUFFIX = ':confirm';

/** A command the automaker is running. */
export class CommandHandle {
  readonly id: string;
  readonly vin: string;
  readonly command: string;
  /** When the service registered it, YYYY-MM-DD HH:MM:SS at -03:00. */
  readonly created: string;

  /** @internal */

  constructor(private readonly commands: Commands, pending: CommandPending) {
    this.id = pending.id;
    this.vin = pending.vin;
    this.command = pending.command;
    this.created = pending.created;
  }

  retrieve(options?: RequestOptions): Promise<CommandStatus> {
    return this.commands.retrieve(this.id, options);
  }

  /** The outcome, Success or Error, once the automaker reports it. */
  wait(options?: WaitOptions): Promise<CommandOutcome> {
    return this.commands.wait(this.id, options);
  }
}

export interface CommandHistoryQuery {
  /** Only this vehicle's commands. */
  readonly vin?: string;
  /** Commands per page, 1–100 (20 by default). */
  readonly limit?: number;
  /** A `next_cursor` of an earlier page: the commands created before it. */
  readonly before?: string;
}

export class Commands {
  /** @internal */
  constructor(private readonly transport: Transport, private readonly signer: CommandSigner | undefined) {}

  /**
   * Sends a command and, for ignition commands, its confirmation; answers a handle to wait on.
   * A command the automaker refuses to start is a CommandStartError (status 502).
   */
  async send(vin: string, command: CommandRequest['command'], options: SendOptions = {}): Promise<CommandHandle> {
    const { confirm, ...rest } = options;
    if (confirm === undefined && (CONFIRMED_COMMANDS as readonly string[]).includes(command)) {
      throw new TypeError(`${command} needs the user's confirmation: pass { confirm } to commands.send`);
    }
    const key = options.idempotencyKey ?? crypto.randomUUID();
    if (key.length > MAX_KEY_LENGTH - CONFIRM_SUFFIX.length) throw new TypeError(`idempotencyKey: at most ${MAX_KEY_LENGTH - CONFIRM_SUFFIX.length} characters for send()`);
    try {
      const first = await this.create({ vin, command }, { ...rest, idempotencyKey: key });
      if (first.status === 'Pending') return new CommandHandle(this, first);
      if (confirm === undefined || !(await confirm(first))) throw new ConfirmationDeclinedError(first);
      // Derived from the first key, so repeating send() with the same key replays both steps.
      const second = await this.create({ vin, command, code: first.code }, { ...rest, idempotencyKey: key + CONFIRM_SUFFIX });
      if (second.status !== 'Pending') throw new TypeError(`the confirmation of ${command} was answered ${second.status}`);
      return new CommandHandle(this, second);
    } catch (error) {
      // The key to repeat this send() with (not the second step's derived one).
      if (error instanceof TelematicsError) error.idempotencyKey = key;
      throw error;
    }
  }

  /** One POST /vehicle-command, signed: Confirmation (with code and message) or Pending. */
  async create(request: CommandRequest, options: CreateOptions = {}): Promise<CommandConfirmation | CommandPending> {
    if (this.signer === undefined) throw new TypeError('sending commands needs the signSecret option of TelematicsClient');
    const signature = await this.signer.sign(request.vin, request.command);
    const { idempotencyKey = crypto.randomUUID(), ...call } = options;
    const body = { vin: request.vin, command: request.command, ...(request.code === undefined ? {} : { code: request.code }) };
    try {
      const answer = await this.transport.json<CommandConfirmation | CommandPending>({
        method: 'POST', path: '/vehicle-command', json: body, retry: 'keyed',
        headers: { 'x-signature': signature, 'idempotency-key': idempotencyKey }, ...call,
      });
      return answer.data;
    } catch (error) {
      if (error instanceof TelematicsError) error.idempotencyKey = idempotencyKey;
      throw error;
    }
  }

  /** The command's status now; readable only by the application that created it. */
  async retrieve(id: string, options: RequestOptions = {}): Promise<CommandStatus> {
    return (await this.transport.json<CommandStatus>({ method: 'GET', path: `/vehicle-command/${encodeURIComponent(id)}`, retry: 'read', ...options })).data;
  }

  /** Polls until Success or Error; TimeoutError (its detail names the last status) when `timeoutMs` passes first. */
  async wait(id: string, options: WaitOptions = {}): Promise<CommandOutcome> {
    const { timeoutMs = 180_000, signal } = options;
    const giveUpAt = Date.now() + timeoutMs;
    let interval = options.intervalMs ?? 1000;
    for (;;) {
      const status = await this.retrieve(id, { signal, timeoutMs: Math.max(1000, Math.min(giveUpAt - Date.now(), 60_000)) });
      if (status.status === 'Success' || status.status === 'Error') return status as CommandOutcome;
      const left = giveUpAt - Date.now();
      if (left <= 0) throw new TimeoutError({ detail: `command ${id} still ${status.status} after ${timeoutMs} ms` });
      await sleep(Math.min(interval, left), signal);
      interval = Math.min(interval * 1.5, MAX_INTERVAL_MS);
    }
  }

  /** One page of the application's own commands, newest first (GET /vehicle-commands). */
  async page(query: CommandHistoryQuery = {}, options: RequestOptions = {}): Promise<CommandHistoryPage> {
    const params = { vin: query.vin, limit: query.limit, before: query.before };
    return (await this.transport.json<CommandHistoryPage>({ method: 'GET', path: '/vehicle-commands', query: params, retry: 'read', ...options })).data;
  }

  /** The application's commands, newest first, page by page for as long as you iterate. */
  list(query: CommandHistoryQuery = {}, options: RequestOptions = {}): AsyncGenerator<CommandHistoryItem> {
    return eachOfPages(query.before, (before) => this.page({ ...query, before }, options));
  }
}
