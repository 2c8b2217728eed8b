/** Test helpers: a hex packet through a fresh framer, and through the decoder. */
import { decodeFrame, type Gt06Decode } from '../../../src/gateway/gt06/decode.js';
import { Gt06Framer, type Gt06Frame } from '../../../src/gateway/gt06/framing.js';
import type { Gt06Message } from '../../../src/gateway/gt06/messages.js';

export const bytes = (hex: string): Buffer => Buffer.from(hex, 'hex');

/** The one frame a packet is; throws when the framer makes anything else of it. */
export function frameOf(packet: string | Buffer): Gt06Frame {
  const out = new Gt06Framer().push(typeof packet === 'string' ? bytes(packet) : packet);
  if (out.length !== 1 || out[0]!.kind !== 'frame') throw new Error(`not one frame: ${JSON.stringify(out)}`);
  return out[0]!;
}

export const decode = (packet: string | Buffer): Gt06Decode => decodeFrame(frameOf(packet));

/** The message of a packet of the given kind; throws on a failure or another kind. */
export function message<K extends Gt06Message['kind']>(packet: string | Buffer, kind: K): Extract<Gt06Message, { kind: K }> {
  const decoded = decode(packet);
  if (!decoded.ok || decoded.kind !== kind) throw new Error(`not ${kind}: ${JSON.stringify(decoded)}`);
  return decoded as Extract<Gt06Message, { kind: K }>;
}
