import { describe, expect, it } from 'vitest';
import { answerVerdict, encodeCommand, gt06AnswerRan, gt06CommandText, ServerFlags } from '../../../src/gateway/gt06/commands.js';
import { wrapFrame } from '../../../src/gateway/gt06/frame-envelope.js';
import { Gt06Framer } from '../../../src/gateway/gt06/framing.js';
import { decodeFrame } from '../../../src/gateway/gt06/decode.js';
import { CONCOX } from './concox-vectors.js';
import { frameOf, message } from './frames.js';
import { TRACCAR } from './traccar-vectors.js';

const hex = (b: Buffer) => b.toString('hex');

/** A device's 0x15 answer: command length, flag, ASCII text, language English. */
function oldAnswer(serverFlag: number, text: string, serial: number): Buffer {
  const content = Buffer.alloc(1 + 4 + text.length + 2);
  content[0] = 4 + text.length;
  content.writeUInt32BE(serverFlag, 1);
  content.write(text, 5, 'latin1');
  content.writeUInt16BE(2, 5 + text.length);
  return wrapFrame(0x15, content, serial);
}

/** A device's 0x21 answer in a 79 79 frame: flag, encoding 1 (ASCII), text. */
function newAnswer(serverFlag: number, text: string, serial: number): Buffer {
  const content = Buffer.alloc(4 + 1 + text.length);
  content.writeUInt32BE(serverFlag, 0);
  content[4] = 1;
  content.write(text, 5, 'latin1');
  return wrapFrame(0x21, content, serial, true);
}

describe('GT06 command frames (0x80)', () => {
  it('when Traccar’s engine stop is encoded with flag 0 and serial 0, then the bytes are its encoder test’s', () => {
    expect(hex(encodeCommand(0, 'Relay,1#', 0))).toBe(TRACCAR.engineStop);
  });

  it('when the other texts of the research note are encoded, then the bytes are the note’s', () => {
    expect(hex(encodeCommand(0, 'Relay,0#', 0))).toBe('787812800c0000000052656c61792c3023000081550d0a');
    expect(hex(encodeCommand(0, 'DYD,123456#', 0))).toBe('787815800f000000004459442c313233343536230000755a0d0a');
    expect(hex(encodeCommand(0, 'HFYD,123456#', 0))).toBe('787816801000000000484659442c313233343536230000e2920d0a');
    expect(hex(encodeCommand(0, 'DYD#', 0))).toBe('78780e80080000000044594423000053780d0a');
  });

  it('when the Concox example’s command is encoded with its serial, then the bytes are the document’s', () => {
    expect(hex(encodeCommand(0, 'sos#', 1))).toBe(CONCOX.command.toLowerCase());
  });

  it('when a server flag is given, then it is the 4 bytes after the command length', () => {
    const frame = frameOf(encodeCommand(0xdeadbeef, 'Relay,1#', 0x0102));
    expect(frame).toMatchObject({ protocol: 0x80, serial: 0x0102 });
    expect(hex(frame.content)).toBe(`0c${'deadbeef'}${Buffer.from('Relay,1#').toString('hex')}`);
  });

  it('when the language field is asked for, then 00 02 follows the text and the command length still counts only flag and text', () => {
    const frame = frameOf(encodeCommand(7, 'Relay,1#', 3, { language: true }));
    expect(frame.bytes[2]).toBe(0x14);
    expect(hex(frame.content)).toBe(`0c00000007${Buffer.from('Relay,1#').toString('hex')}0002`);
  });

  it('when a text is empty, not printable ASCII or too long for a 78 78 frame, then it is refused', () => {
    expect(() => encodeCommand(1, '', 0)).toThrow(RangeError);
    expect(() => encodeCommand(1, 'Relé,1#', 0)).toThrow(RangeError);
    expect(() => encodeCommand(1, 'Relay,1#\r\n', 0)).toThrow(RangeError);
    expect(encodeCommand(1, 'x'.repeat(245), 0).length).toBe(260);
    expect(() => encodeCommand(1, 'x'.repeat(246), 0)).toThrow(RangeError);
    expect(() => encodeCommand(1, 'x'.repeat(244), 0, { language: true })).toThrow(RangeError);
    expect(() => encodeCommand(2 ** 32, 'Relay,1#', 0)).toThrow(RangeError);
  });
});

describe('GT06 server flags', () => {
  it('when flags are taken, then they count up from the start and skip 0 when they wrap', () => {
    const flags = new ServerFlags(0xfffffffe);
    expect([flags.next(), flags.next(), flags.next()]).toEqual([0xfffffffe, 0xffffffff, 1]);
    expect(new ServerFlags().next()).toBe(1);
    expect(() => new ServerFlags(0)).toThrow(RangeError);
  });
});

describe('GT06 command answers', () => {
  it('when two commands are in flight and their answers come back in the other order, then each answer matches its own command by flag', () => {
    const flags = new ServerFlags(41);
    const inFlight = new Map<number, string>();
    const cut = flags.next();
    inFlight.set(cut, 'disable_ignition');
    const info = flags.next();
    inFlight.set(info, 'diagnostics');
    expect(frameOf(encodeCommand(cut, 'Relay,1#', 1)).content.readUInt32BE(1)).toBe(cut);

    const stream = Buffer.concat([newAnswer(info, '<ICCID:89882390000097302650>', 8), oldAnswer(cut, 'Cut off the fuel supply: Success!', 9), oldAnswer(0, 'DYD=Success!', 10)]);
    const answers = new Gt06Framer().push(stream).map((out) => (out.kind === 'frame' ? decodeFrame(out) : out));
    expect(answers.map((a) => ('ok' in a && a.ok && a.kind === 'command-answer' ? [inFlight.get(a.serverFlag), a.text] : a))).toEqual([
      ['diagnostics', '<ICCID:89882390000097302650>'],
      ['disable_ignition', 'Cut off the fuel supply: Success!'],
      [undefined, 'DYD=Success!'],
    ]);
  });

  it('when the captured answer texts are judged, then success, already-in-that-state and error are told apart', () => {
    const verdict = (packet: string) => answerVerdict(message(packet, 'command-answer').text);
    expect(verdict(TRACCAR.answerCutOff)).toEqual({ outcome: 'success', detail: 'done' });
    expect(verdict(TRACCAR.answerRestore)).toEqual({ outcome: 'success', detail: 'done' });
    expect(verdict(TRACCAR.answerAlready)).toEqual({ outcome: 'success', detail: 'already' });
    expect(verdict(TRACCAR.answerLongUtf16)).toEqual({ outcome: 'error', detail: 'refused' });
    expect(verdict(TRACCAR.answerIccid)).toEqual({ outcome: 'error', detail: 'unrecognised' });
  });

  it('when other texts are judged, then unknown commands and failures are refusals and anything else is not taken for success', () => {
    expect(answerVerdict('DYD=Success!')).toEqual({ outcome: 'success', detail: 'done' });
    expect(answerVerdict('Unknown command')).toEqual({ outcome: 'error', detail: 'refused' });
    expect(answerVerdict('Cut off the fuel supply: Fail!')).toEqual({ outcome: 'error', detail: 'refused' });
    expect(answerVerdict('Password error!')).toEqual({ outcome: 'error', detail: 'refused' });
    expect(answerVerdict('')).toEqual({ outcome: 'error', detail: 'unrecognised' });
  });
});

describe('GT06 command texts and whether an answer means the command ran', () => {
  it('when ignition commands are worded for a relay that cuts when on, or when off, then Relay,1# cuts and Relay,0# restores, swapped for the other wiring', () => {
    expect(['disable_ignition', 'enable_ignition', 'diagnostics'].map((c) => gt06CommandText(c, { output: 1, cut: 'on' }))).toEqual(['Relay,1#', 'Relay,0#', 'STATUS#']);
    expect(['disable_ignition', 'enable_ignition'].map((c) => gt06CommandText(c, { output: 1, cut: 'off' }))).toEqual(['Relay,0#', 'Relay,1#']);
    // A GT06 has one relay: an OEM entry naming another output gets no relay command.
    expect(gt06CommandText('disable_ignition', { output: 2, cut: 'on' })).toBeUndefined();
    expect(gt06CommandText('lock_doors', { output: 1, cut: 'on' })).toBeUndefined();
  });

  it('when the device answers done, already so, an error or something else, then only done and already count as ran for a relay command', () => {
    expect(gt06AnswerRan('disable_ignition', 'Cut off the fuel supply: Success!')).toBe(true);
    expect(gt06AnswerRan('enable_ignition', 'Already in the state of fuel supply to resume,the command is not running!')).toBe(true);
    expect(gt06AnswerRan('disable_ignition', 'Command error!')).toBe(false);
    expect(gt06AnswerRan('disable_ignition', 'Battery:6,GPRS:Link Up')).toBe(false);
    // Diagnostics' result comes from stored records: any answer ends it.
    expect(gt06AnswerRan('diagnostics', 'Battery:6,GPRS:Link Up')).toBe(true);
  });
});
