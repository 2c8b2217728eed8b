/**
 * What one tracker connection has said about its movement, for the ignition interlock
 * (domain/movement-window.ts). Each session of every protocol owns one and notes the records it
 * received after they were stored; nothing else writes to it. So a record that came another way
 * (a UDP datagram naming the same IMEI, an automaker ingest, a row in the database) can neither
 * block nor release a command sent on this connection.
 *
 * Noting is on every packet's path and judging only when an ignition command waits, so records
 * are appended in place and the list is trimmed to what a judgement can use only once it has
 * doubled since the last trim: amortised, a record costs one small object, never a copy of the list.
 */
import { isDatedAhead, judgeMovement, samplesStillUseful, type MotionSample, type Movement } from '../domain/movement-window.js';
import type { IncomingRecord } from '../domain/telemetry-record.js';

/** Samples kept per connection: a tracker records at most about one a second, so this is well over the 12 minutes a judgement reads. */
const MAX_SAMPLES = 2048;
/** The list is first trimmed at this length. */
const FIRST_TRIM = 64;

export class SessionMovement {
  #samples: MotionSample[] = [];
  #trimAt = FIRST_TRIM;

  /** Records received on the connection at `receivedAt` (the service clock). */
  note(records: readonly IncomingRecord[], receivedAt: number): void {
    for (const r of records) {
      const speed = r.values.speed;
      const sample = { deviceTime: r.ts, receivedAt, speed: typeof speed === 'number' && Number.isFinite(speed) ? speed : null };
      // Dated ahead now is dated ahead for good: it never counts, so it is not kept.
      if (!isDatedAhead(sample)) this.#samples.push(sample);
    }
    if (this.#samples.length >= this.#trimAt) {
      this.#samples = samplesStillUseful(this.#samples, MAX_SAMPLES);
      this.#trimAt = Math.max(FIRST_TRIM, 2 * this.#samples.length);
    }
  }

  judge(movingSpeedKmh: number): Movement {
    return judgeMovement(this.#samples, movingSpeedKmh);
  }
}
