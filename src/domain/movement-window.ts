/**
 * The ignition interlock's rule (D11: a relay cut at speed is dangerous): whether a tracker is
 * moving, judged from the records one connection received. Pure; every tracker protocol's
 * session feeds it through `gateway/session-movement.ts`, so the rule is written once.
 *
 * - A record dated ahead of the service clock when it arrived (beyond a small skew) never counts:
 *   no honest tracker reports a moment that has not happened yet, and such a record would
 *   otherwise stay "the newest" for minutes.
 * - The verdict is the highest speed in the 2 minutes up to the newest record with a speed, so one
 *   record standing still among moving ones cannot release the interlock; at worst a record holds it.
 *   The window is anchored at the newest record rather than at the clock: a tracker parked for
 *   hours reports rarely and must still take commands, and a moving one may send its records in
 *   batches minutes apart (FMB "send period"), which a window ending now could find empty.
 * - Records without a speed (no GPS fix) do not count; when the newest speed is more than 10 min
 *   older than the newest record (a garage without a fix) the vehicle is taken as standing, as
 *   before, while a shorter gap (a tunnel) keeps the speed before it.
 * - A newest record taken long before it arrived (over 5 min: a tracker sending its backlog after
 *   a reconnect, oldest first) says nothing about now, so the verdict is `unknown` until the
 *   tracker has caught up: old "parked" records must not release the relay of a vehicle that has
 *   since driven off. Five minutes, not two, because a tracker may hold its records for its send
 *   period before sending (FMB: 120 s by default).
 * - No record at all is `unknown`: nothing has been said on this connection yet.
 */

export interface MotionSample {
  /** When the tracker says it took the record, epoch ms. */
  readonly deviceTime: number;
  /** The service clock when the record arrived, epoch ms. */
  readonly receivedAt: number;
  /** km/h, null without a GPS fix. */
  readonly speed: number | null;
}

export type Movement = 'moving' | 'standing' | 'unknown';

/** The window whose highest speed decides. */
export const MOTION_WINDOW_MS = 2 * 60_000;
/** How long the last speed still counts when newer records have none (a tunnel, not a garage). */
export const NO_FIX_LOOKBACK_MS = 10 * 60_000;
/** Clocks disagree a little (GNSS time against the server's NTP); more than this ahead is not a clock, it is a lie. */
export const MOTION_CLOCK_SKEW_MS = 5_000;
/** A newest record taken longer than this before it arrived is backlog: it does not say how the vehicle moves now. */
export const MOTION_LIVE_LAG_MS = 5 * 60_000;

export const isDatedAhead = (sample: MotionSample): boolean => sample.deviceTime > sample.receivedAt + MOTION_CLOCK_SKEW_MS;

export function judgeMovement(samples: readonly MotionSample[], movingSpeedKmh: number): Movement {
  let newest = -Infinity;
  let newestArrived = -Infinity;
  let newestSpeed = -Infinity;
  for (const s of samples) {
    if (isDatedAhead(s)) continue;
    if (s.deviceTime > newest || (s.deviceTime === newest && s.receivedAt > newestArrived)) {
      newest = s.deviceTime;
      newestArrived = s.receivedAt;
    }
    if (s.speed !== null) newestSpeed = Math.max(newestSpeed, s.deviceTime);
  }
  if (newest === -Infinity || newestArrived - newest > MOTION_LIVE_LAG_MS) return 'unknown';
  if (newestSpeed < newest - NO_FIX_LOOKBACK_MS) return 'standing';
  let highest = 0;
  for (const s of samples) {
    if (s.speed !== null && !isDatedAhead(s) && s.deviceTime >= newestSpeed - MOTION_WINDOW_MS) highest = Math.max(highest, s.speed);
  }
  return highest > movingSpeedKmh ? 'moving' : 'standing';
}

/**
 * The samples a judgement can still use, at most `max` (the newest): records dated ahead and
 * those older than the no-fix lookback before the newest never count again.
 */
export function samplesStillUseful(samples: readonly MotionSample[], max: number): MotionSample[] {
  const counted = samples.filter((s) => !isDatedAhead(s));
  const newest = counted.reduce((m, s) => Math.max(m, s.deviceTime), -Infinity);
  const kept = counted.filter((s) => s.deviceTime >= newest - NO_FIX_LOOKBACK_MS - MOTION_WINDOW_MS);
  return kept.length <= max ? kept : [...kept].sort((a, b) => a.deviceTime - b.deviceTime).slice(-max);
}
