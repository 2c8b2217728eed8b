/**
 * `telematics devices decode gt06 <hex>`: a byte stream through the listener's framer and
 * frame-meaning.ts, as on a connection that has logged in with a registered IMEI.
 */
import { frameOf, hexInput, inspectedRecord, type InspectedFrame, type Inspection } from '../inspected-frame.js';
import { meaningOf } from './frame-meaning.js';
import { Gt06Framer } from './framing.js';

export function inspectGt06(input: string, now: number): Inspection {
  const bytes = hexInput(input);
  if (typeof bytes === 'string') return { ok: false, problem: bytes };
  const framer = new Gt06Framer();
  let ignition: boolean | undefined;
  const frames: InspectedFrame[] = framer.push(bytes).map((output) => {
    const meaning = meaningOf(output, { vin: '', ignition, now });
    switch (meaning.kind) {
      case 'dropped': return frameOf(meaning.outcome, { problems: [meaning.problem, 'dropped and counted; the connection is kept'] });
      case 'login': return frameOf('login', { answer: meaning.answer, problems: [`IMEI ${meaning.imei}: answered only when it is registered; an unknown IMEI is disconnected unanswered`] });
      case 'heartbeat':
      case 'time-request': return frameOf(meaning.kind, { answer: meaning.answer });
      case 'location':
      case 'alarm':
        ignition = meaning.ignition;
        return frameOf(meaning.kind, { records: [inspectedRecord(meaning.record)], answer: meaning.answer ?? null, problems: meaning.problems });
      case 'command-answer': return frameOf('command-answer', { problems: [`ends the command sent with server flag ${meaning.serverFlag}: ${JSON.stringify(meaning.text)}`] });
      case 'other': return frameOf('other', { problems: [`protocol 0x${meaning.protocol.toString(16).padStart(2, '0')} is not read: nothing is stored`] });
    }
  });
  if (framer.buffered > 0) frames.push(frameOf('incomplete', { problems: [`the last ${framer.buffered} bytes are not a whole frame: the listener waits for the rest`] }));
  return { ok: true, frames };
}
