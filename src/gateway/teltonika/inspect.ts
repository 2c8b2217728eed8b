/**
 * `telematics devices decode teltonika <hex>`: a TCP byte stream (the IMEI frame, then AVL
 * packets) through the listener's framer, decoder, D11 mapping and acks, as on a connection whose
 * IMEI is registered.
 */
import { frameOf, hexInput, inspectedRecord, type InspectedFrame, type Inspection } from '../inspected-frame.js';
import { loginAnswer, recordAck } from './acks.js';
import { CODEC12_RESPONSE } from './codec12.js';
import { decodeTcpPacket } from './decode.js';
import { TeltonikaFramer, type TeltonikaFrame } from './framing.js';
import { toIncomingRecords } from './to-incoming-records.js';

export function inspectTeltonika(input: string): Inspection {
  const bytes = hexInput(input);
  if (typeof bytes === 'string') return { ok: false, problem: bytes };
  const framer = new TeltonikaFramer();
  let ignition: boolean | undefined;
  const inspect = (frame: TeltonikaFrame): InspectedFrame => {
    switch (frame.kind) {
      case 'ping': return frameOf('ping');
      case 'invalid': return frameOf('invalid', { problems: [frame.reason, 'the listener closes the connection'] });
      case 'login': return frameOf('login', { answer: loginAnswer(true), problems: [`IMEI ${frame.imei}: answered 01 when it is registered; 00, then closed, when not`] });
      case 'packet': {
        const decoded = decodeTcpPacket(frame.bytes);
        if (!decoded.ok) return frameOf(decoded.reason, { problems: [decoded.detail, 'not acknowledged: the tracker sends it again'] });
        if (decoded.kind === 'codec12') {
          return frameOf('codec12', { problems: [decoded.type === CODEC12_RESPONSE ? `a command answer: ${JSON.stringify(decoded.text)}` : 'a Codec 12 command (the server sends those, not a device)'] });
        }
        const mapped = toIncomingRecords('', decoded.records, ignition);
        ignition = mapped.ignition;
        return frameOf('packet', { records: mapped.records.map(inspectedRecord), answer: recordAck(decoded.count) });
      }
    }
  };
  const frames = framer.push(bytes).map(inspect);
  if (framer.buffered > 0) frames.push(frameOf('incomplete', { problems: [`the last ${framer.buffered} bytes are not a whole frame: the listener waits for the rest`] }));
  return { ok: true, frames };
}
