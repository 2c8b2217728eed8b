/**
 * What one framer output means to the gateway, with no socket and no database: what to answer,
 * what to store, what to drop and why. The connection acts on it (adding what needs the registry:
 * whether the login's IMEI is registered, whether the device is still the vehicle's), and
 * `telematics devices decode gt06` prints it, so what an installer checks is what the listener does.
 */
import type { IncomingRecord } from '../../domain/telemetry-record.js';
import { alarmAck, heartbeatAck, loginAck, timeAnswer } from './acks.js';
import { decodeFrame } from './decode.js';
import type { Gt06FramerOutput, Gt06Rejected } from './framing.js';
import { PROTOCOL, type AlarmMessage, type Location } from './messages.js';
import { toIncomingRecord } from './to-incoming-records.js';

export type FrameMeaning =
  /** Not a frame, or a frame that cannot be read: counted by `outcome`, never answered. */
  | { readonly kind: 'dropped'; readonly outcome: Gt06Rejected['reason']; readonly problem: string }
  /** Answered only when `imei` is registered (the caller's check). */
  | { readonly kind: 'login'; readonly imei: string; readonly answer: Buffer }
  | { readonly kind: 'heartbeat' | 'time-request'; readonly answer: Buffer }
  /** Stored; an alarm's answer goes once it is. */
  | { readonly kind: 'location' | 'alarm'; readonly record: IncomingRecord; readonly ignition: boolean | undefined; readonly answer: Buffer | undefined; readonly problems: readonly string[] }
  | { readonly kind: 'command-answer'; readonly serverFlag: number; readonly text: string }
  /** LBS-only, Wi-Fi, information frames: nothing stored, nothing owed. */
  | { readonly kind: 'other'; readonly protocol: number };

export interface MeaningContext {
  /** The vehicle the connection logged in as ('' before the login, or with no registry). */
  readonly vin: string;
  /** The ignition state the connection knew before this frame. */
  readonly ignition: boolean | undefined;
  readonly now: number;
}

function positionProblems(message: Location | AlarmMessage): string[] {
  const problems: string[] = [];
  if (message.gps.timeMs === undefined) problems.push('the date fields are not a date: the record is dated when it was received');
  if (!message.gps.fixed) problems.push('no GPS fix: the coordinates are not stored as a position');
  if (message.kind === 'location' && message.historic) problems.push('a re-upload of history the device buffered');
  return problems;
}

export function meaningOf(output: Gt06FramerOutput, context: MeaningContext): FrameMeaning {
  if (output.kind === 'rejected') return { kind: 'dropped', outcome: output.reason, problem: output.detail };
  // Clones send heartbeats of other lengths: each is answered, whatever its content says.
  if (output.protocol === PROTOCOL.heartbeat) return { kind: 'heartbeat', answer: heartbeatAck(output.serial) };
  const message = decodeFrame(output);
  if (!message.ok) return { kind: 'dropped', outcome: message.reason, problem: message.detail };
  switch (message.kind) {
    case 'login': return { kind: 'login', imei: message.imei, answer: loginAck(output.serial) };
    case 'time-request': return { kind: 'time-request', answer: timeAnswer(output.serial, context.now) };
    case 'location':
    case 'alarm': {
      const { record, ignition } = toIncomingRecord(context.vin, message, context.ignition, context.now);
      const answer = message.kind === 'alarm' ? alarmAck(output.protocol, output.serial) : undefined;
      return { kind: message.kind, record, ignition, answer, problems: positionProblems(message) };
    }
    case 'command-answer': return { kind: 'command-answer', serverFlag: message.serverFlag, text: message.text };
    default: return { kind: 'other', protocol: output.protocol };
  }
}
