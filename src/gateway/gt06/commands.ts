/**
 * Online commands (research note §3): the server sends its text (`Relay,1#`, `DYD,123456#`, the
 * same texts the device takes by SMS) in an 0x80 frame with a 4-byte server flag, and the device
 * answers in text, in an 0x15 or 0x21 frame that carries the flag back unchanged. Traccar always
 * sends flag 0 and so cannot tell two answers apart; a flag per command lets the caller match an
 * answer to exactly its command.
 */
import { IGNITION_COMMANDS, type ImmobilizerSettings } from '../../domain/trackers.js';
import { wrapFrame } from './frame-envelope.js';
import { malformed, PROTOCOL, type CommandAnswer, type DecodeFailure } from './messages.js';

/** Command length 1, server flag 4, [language 2] besides the text; the frame adds 5 more. */
const MAX_TEXT = 0xff - 5 - 1 - 4;
const ENGLISH = 0x0002;

export interface CommandOptions {
  /**
   * Append the language field (English, 00 02). Concox's table lists it but its example and
   * Traccar (unless `gt06.language` is set) leave it out; the command length never counts it.
   */
  readonly language?: boolean;
}

/** The whole 0x80 frame: `78 78 | len | 80 | 4 + n | flag | text | [00 02] | serial | CRC | 0d 0a`. */
export function encodeCommand(serverFlag: number, text: string, serial: number, options: CommandOptions = {}): Buffer {
  if (!Number.isInteger(serverFlag) || serverFlag < 0 || serverFlag > 0xffffffff) throw new RangeError(`server flag ${serverFlag} does not fit 4 bytes`);
  if (!/^[\x20-\x7e]+$/.test(text)) throw new RangeError('a GT06 command text is printable ASCII');
  const language = options.language === true ? 2 : 0;
  if (text.length > MAX_TEXT - language) throw new RangeError(`a GT06 command text is at most ${MAX_TEXT - language} characters`);
  const content = Buffer.allocUnsafe(1 + 4 + text.length + language);
  content[0] = 4 + text.length;
  content.writeUInt32BE(serverFlag, 1);
  content.write(text, 5, 'latin1');
  if (language) content.writeUInt16BE(ENGLISH, 5 + text.length);
  return wrapFrame(PROTOCOL.command, content, serial);
}

/**
 * Server flags for the commands of one gateway: counting up from `start`, never 0. Flag 0 is what
 * Traccar and other servers send, so an answer carrying it matches no command of ours.
 */
export class ServerFlags {
  #next: number;

  constructor(start = 1) {
    if (!Number.isInteger(start) || start < 1 || start > 0xffffffff) throw new RangeError('a server flag start is 1 to 2^32 - 1');
    this.#next = start;
  }

  next(): number {
    const flag = this.#next;
    this.#next = flag === 0xffffffff ? 1 : flag + 1;
    return flag;
  }
}

/** Padding devices put after the text: trailing NUL characters are no part of it. */
const trimNul = (text: string): string => text.replace(/\u0000+$/u, '');

function utf16be(bytes: Buffer): string {
  const even = Buffer.from(bytes.subarray(0, bytes.length & ~1));
  return even.swap16().toString('utf16le');
}

/**
 * 0x15: command length 1 (= 4 + text), server flag 4, ASCII text, language 2. 0x21: server flag 4,
 * encoding 1 (1 ASCII, 2 UTF-16BE), text. A captured 0x15 has command length 0 and its text
 * padded with NULs to the language field; the text is then all that lies between.
 */
export function decodeCommandAnswer(protocol: number, content: Buffer): CommandAnswer | DecodeFailure {
  if (protocol === PROTOCOL.commandAnswerLong) {
    if (content.length < 5) return malformed(`command answer of ${content.length} bytes has no server flag and encoding`);
    const text = content[4] === 2 ? utf16be(content.subarray(5)) : content.toString('latin1', 5);
    return { ok: true, kind: 'command-answer', serverFlag: content.readUInt32BE(0), text: trimNul(text) };
  }
  if (content.length < 7) return malformed(`command answer of ${content.length} bytes has no server flag and language`);
  const length = content[0]!;
  const end = length >= 4 && 1 + length + 2 <= content.length ? 1 + length : content.length - 2;
  return { ok: true, kind: 'command-answer', serverFlag: content.readUInt32BE(1), text: trimNul(content.toString('latin1', 5, end)) };
}

/**
 * What an answer's text says of its command. "Already in the state …, the command is not
 * running!" means the relay is where the command would have put it: success, with that detail.
 * A text saying error, failure or unknown is a refusal; any other text is not taken for success,
 * because an engine-stop command must only count as done when the device says it is.
 */
export type AnswerVerdict =
  | { readonly outcome: 'success'; readonly detail: 'done' | 'already' }
  | { readonly outcome: 'error'; readonly detail: 'refused' | 'unrecognised' };

const ALREADY = /\balready\b/i;
const REFUSED = /\berror\b|\bfail|\bunknown\b|\binvalid\b|\bwrong\b|not support/i;
const DONE = /success|\bok\b/i;

export function answerVerdict(text: string): AnswerVerdict {
  if (ALREADY.test(text)) return { outcome: 'success', detail: 'already' };
  if (REFUSED.test(text)) return { outcome: 'error', detail: 'refused' };
  if (DONE.test(text)) return { outcome: 'success', detail: 'done' };
  return { outcome: 'error', detail: 'unrecognised' };
}

/**
 * The text of a command (D11): `Relay,1#` engages the fuel/power cut relay and `Relay,0#` releases
 * it, inverted when the OEM entry says the relay cuts when off; `STATUS#` for diagnostics (its
 * answer is kept in the exchange row; the result's fields come from stored records). A GT06 has
 * one relay, so an OEM entry naming another output gets no relay command.
 */
export function gt06CommandText(command: string, immobilizer: ImmobilizerSettings): string | undefined {
  if (command === 'diagnostics') return 'STATUS#';
  if (!IGNITION_COMMANDS.has(command) || immobilizer.output !== 1) return undefined;
  const cutting = command === 'disable_ignition';
  return `Relay,${cutting === (immobilizer.cut === 'on') ? 1 : 0}#`;
}

/** Whether `answer` says the device ran `command`: a relay command only on a success verdict (done, or already so). */
export function gt06AnswerRan(command: string, answer: string): boolean {
  return !IGNITION_COMMANDS.has(command) || answerVerdict(answer).outcome === 'success';
}
