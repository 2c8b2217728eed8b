/**
 * Sends commands to the trackers connected to this gateway (D11). Each pass reads the unsent
 * exchange rows (the partial index holds only those) and, for a tracker connected here and
 * ready (its last records acknowledged, no answer awaited: Codec 12 answers carry no id, so one
 * command at a time), marks the row sent and then writes the command. Marking first means a
 * crash between the two loses the command (it ends as `Command timeout.`) rather than sending
 * it twice after a restart.
 *
 * The ignition interlock is decided here, on the connection that carries the command, from that
 * connection's own records only (session-movement.ts, domain/movement-window.ts): a stored
 * record, which any source naming the vehicle could have written, neither blocks nor releases
 * it. Moving: refused, `Commands blocked.`. No record on the connection yet: the command waits
 * for the tracker's first packet (or its deadline). Standing: claimed, and judged once more right
 * before the bytes are written, since a packet may be stored between the claim and the write.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { IGNITION_COMMANDS, type DeviceProtocol } from '../domain/trackers.js';
import type { StoreConnection } from '../store/connection.js';
import { pollCommandNow } from '../store/commands/poll.js';
import {
  claimDeviceCommand, listUnsentDeviceCommands, recordDeviceAnswer, refuseDeviceCommand, withdrawClaimedDeviceCommand, type UnsentDeviceCommand,
} from '../store/device-commands-queries.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import { CommandWithheld, type TrackerSession, type TrackerSessions } from './tracker-sessions.js';

export interface DispatcherSettings {
  readonly movingSpeedKmh: number;
  /** How often unsent commands are looked for, ms. */
  readonly intervalMs: number;
}

/** Rows read per pass: unsent commands are only those still Pending (deadline 2 min by default). */
const BATCH = 1000;
/** A command with less time than this before its deadline is not sent: its answer could not land in time. */
const SEND_MARGIN_MS = 5000;

export class TrackerCommandDispatcher {
  readonly gatewayId = `gateway-${randomUUID()}`;
  readonly #store: StoreConnection;
  readonly #sessions: TrackerSessions;
  readonly #clock: Clock;
  readonly #settings: DispatcherSettings;
  readonly #metrics: GatewayMetrics;
  readonly #logger: Logger;
  /** Answers being written: awaited on close so none is lost to a shutdown. */
  readonly #inFlight = new Set<Promise<void>>();

  constructor(store: StoreConnection, sessions: TrackerSessions, clock: Clock, settings: DispatcherSettings, metrics: GatewayMetrics, logger: Logger) {
    this.#store = store;
    this.#sessions = sessions;
    this.#clock = clock;
    this.#settings = settings;
    this.#metrics = metrics;
    this.#logger = logger;
  }

  /** One pass; returns how many commands were sent. */
  async runOnce(): Promise<number> {
    if (this.#sessions.size === 0) return 0;
    const rows = await listUnsentDeviceCommands(this.#store.db, this.#clock.now(), SEND_MARGIN_MS, BATCH);
    let sent = 0;
    for (const row of rows) {
      const session = this.#sessions.get(row.device_id);
      if (!session?.ready) continue;
      const ignition = IGNITION_COMMANDS.has(row.command);
      if (ignition) {
        const movement = session.movement.judge(this.#settings.movingSpeedKmh);
        if (movement === 'unknown') continue;
        if (movement === 'moving') {
          await refuseDeviceCommand(this.#store.db, row.command_id, 'blocked');
          await this.#blocked(row, session.protocol);
          continue;
        }
      }
      if (!session.ready || !(await claimDeviceCommand(this.#store.db, row.command_id, this.gatewayId, this.#clock.now()))) continue;
      const mayWrite = ignition ? this.#standing(session) : undefined;
      this.#track(this.#exchange(row, session.protocol, session.sendCommand(row.text, Math.max(1000, row.command_deadline - this.#clock.now()), mayWrite)));
      this.#metrics.commands.inc({ protocol: session.protocol, outcome: 'sent' });
      sent += 1;
    }
    return sent;
  }

  #standing(session: TrackerSession): () => boolean {
    return () => session.movement.judge(this.#settings.movingSpeedKmh) === 'standing';
  }

  async #blocked(row: UnsentDeviceCommand, protocol: DeviceProtocol): Promise<void> {
    await pollCommandNow(this.#store.db, row.command_id, this.#clock.now());
    this.#metrics.commands.inc({ protocol, outcome: 'blocked' });
  }

  async #exchange(row: UnsentDeviceCommand, protocol: DeviceProtocol, answer: Promise<string>): Promise<void> {
    let text: string;
    try {
      text = await answer;
    } catch (error) {
      if (error instanceof CommandWithheld) return this.#withdraw(row, protocol);
      this.#metrics.commands.inc({ protocol, outcome: 'lost' });
      this.#logger.info({ command: row.command_id, vin: row.vin, reason: (error as Error).message }, 'tracker did not answer a command; it ends at its deadline');
      return;
    }
    this.#metrics.commands.inc({ protocol, outcome: 'answered' });
    try {
      await recordDeviceAnswer(this.#store.db, row.command_id, text, this.#clock.now());
      await pollCommandNow(this.#store.db, row.command_id, this.#clock.now());
    } catch (error) {
      this.#logger.warn({ command: row.command_id, err: error }, 'could not store a tracker answer; the command ends at its deadline');
    }
  }

  /** Claimed, then found moving at the moment of writing: nothing left, so it ends `Commands blocked.`. */
  async #withdraw(row: UnsentDeviceCommand, protocol: DeviceProtocol): Promise<void> {
    try {
      await withdrawClaimedDeviceCommand(this.#store.db, row.command_id, this.gatewayId, 'blocked');
      await this.#blocked(row, protocol);
    } catch (error) {
      this.#logger.warn({ command: row.command_id, err: error }, 'could not store a withheld ignition command; it ends at its deadline');
    }
  }

  #track(work: Promise<void>): void {
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  /** Waits for answers already received to be stored. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }

  periodicWorker(): PeriodicWorker {
    return {
      name: 'tracker commands',
      intervalMs: this.#settings.intervalMs,
      busyIntervalMs: this.#settings.intervalMs,
      retryAfterMs: 1000,
      runOnce: async () => ({ more: (await this.runOnce()) > 0 }),
    };
  }
}
