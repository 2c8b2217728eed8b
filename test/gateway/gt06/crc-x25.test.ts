import { describe, expect, it } from 'vitest';
import { crcX25 } from '../../../src/gateway/gt06/crc-x25.js';
import { CONCOX } from './concox-vectors.js';
import { bytes } from './frames.js';
import { TRACCAR } from './traccar-vectors.js';

/** The CRC a frame carries, and the one computed over its length field through its serial. */
function crcs(hex: string): [number, number] {
  const frame = bytes(hex);
  return [frame.readUInt16BE(frame.length - 4), crcX25(frame, 2, frame.length - 4)];
}

describe('CRC-16/X-25', () => {
  it('when "123456789" is checked, then the CRC is the catalogued check value 0x906E', () => {
    expect(crcX25(Buffer.from('123456789', 'ascii'))).toBe(0x906e);
  });

  it('when a range is given, then only those bytes count', () => {
    expect(crcX25(Buffer.from('xx123456789yy', 'ascii'), 2, 11)).toBe(0x906e);
    expect(crcX25(Buffer.alloc(0))).toBe(0x0000);
  });

  it.each(Object.entries(CONCOX))('when the Concox example %s is checked, then its CRC matches', (_, hex) => {
    const [sent, computed] = crcs(hex);
    expect(computed).toBe(sent);
  });

  it('when the engine-stop frame of Traccar’s encoder test is checked, then its CRC 0x9DEE matches', () => {
    expect(crcs(TRACCAR.engineStop)).toEqual([0x9dee, 0x9dee]);
  });

  it('when Traccar’s three bad-CRC captures are checked, then they fail', () => {
    for (const hex of [TRACCAR.loginLongBadCrc, TRACCAR.gpsLbsBadCrc, TRACCAR.answerLongBadCrc]) {
      const [sent, computed] = crcs(hex);
      expect(computed).not.toBe(sent);
    }
  });
});
