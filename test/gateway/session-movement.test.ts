/** One connection's movement (gateway/session-movement.ts): records noted one packet at a time, as a session does, over hours. */
import { describe, expect, it } from 'vitest';
import { SessionMovement } from '../../src/gateway/session-movement.js';

const START = Date.UTC(2026, 10, 20, 8, 0, 0);
const VIN = '9BD26550JP9123456';
const THRESHOLD = 3;

/** One packet of one record taken at `ts`, received when it was taken. */
function notePacket(movement: SessionMovement, ts: number, speed: number | null): void {
  movement.note([{ vin: VIN, ts, values: speed === null ? {} : { speed } }], ts);
}

describe('SessionMovement', () => {
  it('when a tracker reports every second for three hours, moving then standing, then each verdict is the 2-minute rule over what it said', () => {
    const movement = new SessionMovement();
    let ts = START;
    for (let i = 0; i < 3 * 3600; i += 1, ts += 1000) notePacket(movement, ts, i < 2 * 3600 ? 60 : 0);
    // The last hour stood still: long past the window, so the earlier driving no longer counts.
    expect(movement.judge(THRESHOLD)).toBe('standing');
    notePacket(movement, ts, 50);
    expect(movement.judge(THRESHOLD)).toBe('moving');
    // 119 s of standing records after it: the 50 km/h record is still within 2 minutes of the newest.
    for (let i = 1; i < 120; i += 1) notePacket(movement, ts + i * 1000, 0);
    expect(movement.judge(THRESHOLD)).toBe('moving');
    notePacket(movement, ts + 121_000, 0);
    expect(movement.judge(THRESHOLD)).toBe('standing');
  });

  it('when a record in a packet is dated ahead of its arrival, then it is never kept: a later standing record decides', () => {
    const movement = new SessionMovement();
    movement.note([{ vin: VIN, ts: START + 4 * 60_000, values: { speed: 150 } }], START);
    expect(movement.judge(THRESHOLD)).toBe('unknown');
    notePacket(movement, START + 1000, 0);
    expect(movement.judge(THRESHOLD)).toBe('standing');
  });
});
