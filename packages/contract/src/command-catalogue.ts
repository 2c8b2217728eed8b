/**
 * Remote commands the service knows. The interface names the first three; the rest are what fleet
 * platforms commonly offer. A company may send a command when its package plan and the vehicle's
 * OEM both allow it (D10).
 */
export const COMMAND_NAMES = Object.freeze([
  'diagnostics',
  'enable_ignition',
  'disable_ignition',
  'lock_doors',
  'unlock_doors',
  'locate',
  'start_charging',
  'stop_charging',
] as const);

export type CommandName = (typeof COMMAND_NAMES)[number];

/** Commands that need the two-step confirmation of D5. */
export const CONFIRMED_COMMANDS: ReadonlySet<string> = new Set(['enable_ignition', 'disable_ignition']);

export function isKnownCommand(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}
