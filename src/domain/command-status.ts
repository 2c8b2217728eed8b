/**
 * Command states and the texts a command can end with (interface "Command status", "Errors").
 */
import { errors } from '@telematics/contract';

export const COMMAND_STATUSES = Object.freeze(['Confirmation', 'Pending', 'Success', 'Error'] as const);
export type CommandStatus = (typeof COMMAND_STATUSES)[number];

/** Success and Error are final: a command in either never changes again. */
export const isFinalStatus = (status: string): boolean => status === 'Success' || status === 'Error';

/** The nine texts of a command that failed after acceptance, by the reason an automaker reports. */
export const COMMAND_ERROR_TEXTS = Object.freeze({
  timeout: 'Command timeout.',
  blocked: 'Commands blocked.',
  restricted: 'Commands restrictions.',
  communication: 'Communication failures.',
  data: 'Data retrieval failures.',
  internal: 'Internal system failures.',
  invalid_input: 'Invalid input.',
  unauthorized: 'Unauthorized access.',
  unsupported: 'Unsupported commands.',
} as const);
export type CommandErrorReason = keyof typeof COMMAND_ERROR_TEXTS;

/** An automaker reason we do not know counts as its own internal failure. */
export function commandErrorText(reason: unknown): string {
  return typeof reason === 'string' && Object.hasOwn(COMMAND_ERROR_TEXTS, reason)
    ? COMMAND_ERROR_TEXTS[reason as CommandErrorReason]
    : COMMAND_ERROR_TEXTS.internal;
}

/** D6: failures while starting a command with the automaker; the creation answers 502. */
export const OEM_SEND_FAILED = errors.oemSendFailed.text;
export const OEM_INITIATE_FAILED = errors.oemInitiateFailed.text;
