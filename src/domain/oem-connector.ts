/**
 * The port to an automaker cloud. Every implementation must:
 * - `initiate`: ask the automaker to run a command and return the URL where its status will be
 *   found. The creation calls it once per command and never retries it on failure (an automaker
 *   that timed out may have received it). The repeats are the command worker's, after a crash
 *   left the command without its status URL (src/domain/initiation.ts), tried again after a
 *   `send` failure until the command's deadline: the same `commandId`,
 *   which must reach the automaker as an idempotency key, so that a repeat is answered with the
 *   same status URL and the vehicle acts once (HTTP: the `Idempotency-Key` header). It throws
 *   `OemFailure('send')` when the automaker cannot be reached, times out or answers 5xx, and
 *   `OemFailure('initiate')` when it refuses the command or gives no usable status URL (D6).
 * - `poll`: read a status URL once. It may be repeated freely. It returns the command's state;
 *   transport problems throw `OemFailure('send')` and the caller simply polls again later.
 * Both honour the given AbortSignal and their own timeouts.
 */
import type { CommandErrorReason } from './command-status.js';

export interface CommandRequest {
  readonly commandId: string;
  readonly vin: string;
  readonly command: string;
}

export type CommandState =
  | { readonly state: 'pending' }
  | { readonly state: 'success'; readonly result: Record<string, unknown> }
  | {
    readonly state: 'error';
    readonly reason: CommandErrorReason | string;
    /** Why, for the operator's log, when the connector ended the command itself (the automaker said nothing usable). */
    readonly why?: string;
  };

export class OemFailure extends Error {
  constructor(readonly kind: 'send' | 'initiate', message: string) {
    super(message);
    this.name = 'OemFailure';
  }
}

export interface OemConnector {
  initiate(request: CommandRequest): Promise<{ statusUrl: string }>;
  poll(statusUrl: string): Promise<CommandState>;
}

/** Which connector reaches an OEM's cloud (src/oem/connector-registry.ts implements it). */
export interface ConnectorLookup {
  for(oem: { readonly connector: string; readonly base_url: string | null }): OemConnector;
}
