/**
 * Commands to a Teltonika tracker (D11) as Codec 12 carries them: FMB SMS command texts, and how
 * the answer tells whether the tracker ran one.
 */
import { DEFAULT_IMMOBILIZER, IGNITION_COMMANDS, type ImmobilizerSettings } from '../../domain/trackers.js';

/** An FMB tracker answers `setdigout` with the outputs' states (`DOUT1:ON Timeout:INFINITY`). */
const DIGOUT_ANSWER = /DOUT\d/i;

/**
 * The text of a command: `setdigout` with one state character per output up to the relay's (`?`
 * leaves the others as they are), `getinfo` for diagnostics; undefined for a command it has none for.
 */
export function teltonikaCommandText(command: string, immobilizer: ImmobilizerSettings = DEFAULT_IMMOBILIZER): string | undefined {
  if (command === 'diagnostics') return 'getinfo';
  if (command !== 'disable_ignition' && command !== 'enable_ignition') return undefined;
  const cut = immobilizer.cut === 'on' ? '1' : '0';
  const state = command === 'disable_ignition' ? cut : cut === '1' ? '0' : '1';
  return `setdigout ${'?'.repeat(immobilizer.output - 1)}${state}`;
}

/** Whether `answer` says the tracker ran `command`: an ignition command answered with anything but output states was not run (`Unknown command`). */
export function teltonikaAnswerRan(command: string, answer: string): boolean {
  return !IGNITION_COMMANDS.has(command) || DIGOUT_ANSWER.test(answer);
}
