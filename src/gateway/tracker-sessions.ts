/**
 * The trackers connected to this gateway process, by device id, so a command finds the open
 * connection of its vehicle's tracker. A newer connection of the same tracker replaces the older
 * one, which is closed: devices reconnect on a new socket while the old one may still look open.
 */
import type { DeviceProtocol } from '../domain/trackers.js';
import type { SessionMovement } from './session-movement.js';

export interface TrackerSession {
  /** The protocol it speaks (the commands counter's label). */
  readonly protocol: DeviceProtocol;
  readonly deviceId: string;
  /** Not reading, storing or acknowledging a packet, and no command awaiting its answer. */
  readonly ready: boolean;
  /** What this connection's own records say of the vehicle's movement (the ignition interlock reads nothing else). */
  readonly movement: SessionMovement;
  /**
   * Writes the command and resolves with the tracker's answer; rejects when the connection ends
   * first or `timeoutMs` passes. `mayWrite` is asked right before the bytes are written (which may
   * be after a packet that arrived meanwhile was stored): false writes nothing and rejects with
   * `CommandWithheld`.
   */
  sendCommand(text: string, timeoutMs: number, mayWrite?: () => boolean): Promise<string>;
  close(): void;
}

/** A command whose `mayWrite` said no at the moment of writing: nothing reached the tracker. */
export class CommandWithheld extends Error {
  constructor() {
    super('withheld before writing');
    this.name = 'CommandWithheld';
  }
}

export class TrackerSessions {
  readonly #byDevice = new Map<string, TrackerSession>();

  get size(): number {
    return this.#byDevice.size;
  }

  get(deviceId: string): TrackerSession | undefined {
    return this.#byDevice.get(deviceId);
  }

  add(session: TrackerSession): void {
    const previous = this.#byDevice.get(session.deviceId);
    this.#byDevice.set(session.deviceId, session);
    if (previous && previous !== session) previous.close();
  }

  /** Only the current session of its device is removed: a replaced one must not remove its successor. */
  remove(session: TrackerSession): void {
    if (this.#byDevice.get(session.deviceId) === session) this.#byDevice.delete(session.deviceId);
  }

  closeAll(): void {
    for (const session of [...this.#byDevice.values()]) session.close();
    this.#byDevice.clear();
  }
}
