/** POST /vehicle-command and GET /vehicle-command/{command_id} (interface, D4, D5). */
import { Type, type Static } from 'typebox';

export const SIGNATURE_HEADER_TEXT = 'hex HMAC-SHA256 of {"command":…,"vin":…} with the sign-secret';

export const VehicleCommandHeaders = Type.Object({
  'x-signature': Type.Optional(Type.String({ description: SIGNATURE_HEADER_TEXT })),
  'idempotency-key': Type.Optional(Type.String({ description: 'Optional, 1–255 printable ASCII characters: a retry with the same key and request gets the first response (header Idempotent-Replayed: true) and sends nothing new to the automaker; kept 24 h per application' })),
});
export type VehicleCommandHeaders = Static<typeof VehicleCommandHeaders>;

/** What a client sends. The schema below accepts any object, so the service sees `unknown` fields. */
export interface VehicleCommandFields {
  readonly vin: string;
  readonly command: string;
  /** The 6 digits of the first step's answer, for the second step of a confirmed command. */
  readonly code?: string;
}

export const VehicleCommandRequest = Type.Unsafe<Readonly<Record<string, unknown>>>({
  type: 'object',
  // Types are checked by the service, not the schema: a wrong vin or command must get the
  // interface's exact texts, which only the D4 checks produce.
  description: 'vin (string), command (string), and code (6 digits) for the second step of ignition commands',
  properties: { vin: { description: 'string: the VIN' }, command: { description: 'string: the command name' }, code: { description: 'string of 6 digits' } },
});

/** The answer of POST /vehicle-command: 200 for the first two, 502 for `Error`. */
export type VehicleCommandAnswer =
  | { id: string; vin: string; command: string; status: 'Confirmation'; code: string; message: string }
  | { id: string; vin: string; command: string; status: 'Pending'; created: string }
  | { id: string; vin: string; command: string; status: 'Error'; detail: string };

/** The HTTP status the interface answers a creation with: 502 when the automaker could not start it. */
export const creationStatusCode = (answer: VehicleCommandAnswer): 200 | 502 => (answer.status === 'Error' ? 502 : 200);

export const VehicleCommandCreated = Type.Unsafe<VehicleCommandAnswer>({
  description: 'Created: status Confirmation (with code and message) or Pending (with created)', type: 'object', additionalProperties: true,
});

export const VehicleCommandFailed = Type.Unsafe<VehicleCommandAnswer>({
  description: 'The automaker could not start the command: status Error with detail', type: 'object', additionalProperties: true,
});

export const CommandParams = Type.Object({ command_id: Type.String({ description: 'UUID returned by POST /vehicle-command' }) });
export type CommandParams = Static<typeof CommandParams>;

export const CommandStatus = Type.Object({
  id: Type.String(), vin: Type.String(), command: Type.String(),
  status: Type.String({ description: 'Confirmation, Pending, Success or Error' }),
  detail: Type.Unknown({ description: 'The vehicle\'s result object on success, the error text on failure, {} otherwise' }),
  updated: Type.String({ description: 'YYYY-MM-DD HH:MM:SS at -03:00' }),
});
export type CommandStatus = Static<typeof CommandStatus>;
