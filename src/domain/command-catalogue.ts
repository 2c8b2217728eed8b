/** The command catalogue is part of the contract package; re-exported for the service's imports. */
export { COMMAND_NAMES, CONFIRMED_COMMANDS, isKnownCommand, type CommandName } from '@telematics/contract';
