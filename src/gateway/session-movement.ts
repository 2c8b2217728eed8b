/**
 * What one tracker connection has said about its movement, for the ignition interlock
 * (domain/movement-window.ts). Each session of every protocol owns one and notes the records it
 * received after they were stored; nothing else writes to it. So a record that came another way
 * (a UDP datagram naming the same IMEI, an automaker ingest, a row in the database) can neither
 * block nor release a command sent on this connection.
 */
import { judgeMovement, samplesStillUseful, type MotionSample, type Movement } from '../domain/movement-window.js';
import type { IncomingRecord } from '../domain/telemetry-record.js';

/** Samples kept per connection: a tracker records at most about one a second, so this is well over the 12 minutes a judgement reads. */
const MAX_SAMPLES = 2048;

export class SessionMovement {
  #samples: MotionSample[] = [];

  /** Records received on the connection at `receivedAt` (the service clock). */
  note(records: readonly IncomingRecord[], receivedAt: number): void {
    if (records.length === 0) return;
    const added = records.map((r) => ({ deviceTime: r.ts, receivedAt, speed: typeof r.values.speed === 'number' && Number.isFinite(r.values.speed) ? r.values.speed : null }));
    this.#samples = samplesStillUseful([...this.#samples, ...added], MAX_SAMPLES);
  }

  judge(movingSpeedKmh: number): Movement {
    return judgeMovement(this.#samples, movingSpeedKmh);
  }
}
