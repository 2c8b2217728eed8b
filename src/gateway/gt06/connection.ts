/**
 * One GT06/Concox tracker on TCP (research note §1-§3):
 * - Nothing is read before the login but the login: a frame before it is dropped and counted. The
 *   login is answered (within the protocol's 5 s: one registry lookup) only when the IMEI belongs
 *   to a vehicle of a `device` OEM; an unknown IMEI is counted and the connection closed unanswered,
 *   so the device never takes this server for its own.
 * - Heartbeats and time requests are answered at once; alarms after the intake has stored them (a
 *   device repeats an unanswered alarm). Locations need no answer (Concox: none required).
 * - Junk, a bad CRC, an oversize or an unreadable frame is dropped and counted and the connection
 *   kept: a GT06 that gets no answer reboots, and clones send odd frames (framing.ts).
 * - Frames are handled one at a time with the socket paused; the framer bounds the bytes held.
 * - Commands go out as 0x80 frames, each with a server flag of its own (commands.ts), and the
 *   device's 0x15/0x21 answer carries the flag back, so several may be in flight and each answer
 *   ends exactly its command; an answer naming no awaited flag is counted and ignored. A command
 *   not answered before its deadline is given up without closing the connection: a late answer
 *   carries its own flag, so it can never be taken for another command's.
 * - The records stored from this connection, and only those, are noted for the ignition interlock.
 * - Every location checks again (through the registry cache) that the IMEI still names the same
 *   vehicle of a `device` OEM: a tracker moved or removed in the registry is disconnected.
 */
import type { Socket } from 'node:net';
import type { IncomingRecord } from '../../domain/telemetry-record.js';
import type { TrackedVehicle } from '../../store/vehicles-queries.js';
import { FrameQueue } from '../frame-queue.js';
import { SessionMovement } from '../session-movement.js';
import type { TrackerListenerContext } from '../tracker-protocol-module.js';
import { CommandWithheld, type TrackerSession } from '../tracker-sessions.js';
import { encodeCommand, type ServerFlags } from './commands.js';
import { meaningOf } from './frame-meaning.js';
import { Gt06Framer, type Gt06FramerOutput } from './framing.js';

export interface Gt06ConnectionDeps extends Pick<TrackerListenerContext, 'lookup' | 'intake' | 'sessions' | 'metrics' | 'logger' | 'loginTimeoutMs' | 'idleTimeoutMs'> {
  /** The gateway's flags: unique across its connections, so no answer can match a command of another. */
  readonly flags: ServerFlags;
  readonly maxFrameBytes?: number;
}

/** Commands awaiting their answers on one connection at once. */
export const MAX_COMMANDS_IN_FLIGHT = 4;

interface AwaitedAnswer {
  resolve(text: string): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** The frame, until it is written (a frame was being handled when the command came). */
  frame: Buffer | undefined;
  mayWrite: (() => boolean) | undefined;
}

const LABELS = { protocol: 'gt06', transport: 'tcp' } as const;

export class Gt06Connection implements TrackerSession {
  readonly protocol = 'gt06';
  readonly #socket: Socket;
  readonly #deps: Gt06ConnectionDeps;
  readonly #framer: Gt06Framer;
  readonly #queue: FrameQueue<Gt06FramerOutput>;
  #closed = false;
  #imei: string | undefined;
  #vehicle: TrackedVehicle | undefined;
  #ignition: boolean | undefined;
  /** By server flag, in the order the commands came. */
  readonly #awaited = new Map<number, AwaitedAnswer>();
  /** The serial of the server's own frames (commands); answers echo the device's. */
  #serial = 0;
  readonly #loginDeadline: NodeJS.Timeout;
  readonly movement = new SessionMovement();

  constructor(socket: Socket, deps: Gt06ConnectionDeps) {
    this.#socket = socket;
    this.#deps = deps;
    this.#framer = new Gt06Framer(deps.maxFrameBytes === undefined ? {} : { maxFrameBytes: deps.maxFrameBytes });
    deps.metrics.connections.inc(LABELS);
    deps.metrics.open.inc(LABELS);
    socket.setNoDelay(true);
    this.#loginDeadline = setTimeout(() => socket.destroy(), deps.loginTimeoutMs);
    this.#loginDeadline.unref();
    socket.on('timeout', () => socket.destroy());
    this.#queue = new FrameQueue(socket, (frame) => this.#handle(frame), {
      closed: () => this.#closed,
      idle: () => this.#writeCommands(),
      failed: (error) => {
        this.#deps.logger.warn({ err: error, imei: this.#imei }, 'tracker connection closed after an unexpected failure');
        socket.destroy();
      },
    });
    socket.on('data', (chunk: Buffer) => this.#queue.push(this.#framer.push(chunk)));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.#onClose());
  }

  get deviceId(): string {
    return this.#imei ?? '';
  }

  /** Logged in, no frame being handled, and room for another command in flight. */
  get ready(): boolean {
    return !this.#closed && this.#vehicle !== undefined && !this.#queue.busy && this.#awaited.size < MAX_COMMANDS_IN_FLIGHT;
  }

  sendCommand(text: string, timeoutMs: number, mayWrite?: () => boolean): Promise<string> {
    if (this.#closed || this.#vehicle === undefined) return Promise.reject(new Error('connection closed'));
    if (this.#awaited.size >= MAX_COMMANDS_IN_FLIGHT) return Promise.reject(new Error('too many commands await their answers'));
    const flag = this.#deps.flags.next();
    let frame: Buffer;
    try {
      frame = encodeCommand(flag, text, this.#nextSerial());
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => this.#settle(flag, undefined, new Error('no answer before the deadline')), timeoutMs);
      timer.unref();
      this.#awaited.set(flag, { resolve, reject, timer, frame, mayWrite });
      if (!this.#queue.working) this.#writeCommands();
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #nextSerial(): number {
    this.#serial = (this.#serial + 1) & 0xffff;
    return this.#serial;
  }

  #writeCommands(): void {
    for (const [flag, awaited] of this.#awaited) {
      if (!awaited.frame || this.#closed) continue;
      if (awaited.mayWrite && !awaited.mayWrite()) {
        this.#settle(flag, undefined, new CommandWithheld());
        continue;
      }
      this.#socket.write(awaited.frame);
      awaited.frame = undefined;
    }
  }

  #count(outcome: string): void {
    this.#deps.metrics.packets.inc({ ...LABELS, outcome });
  }

  async #handle(output: Gt06FramerOutput): Promise<void> {
    const now = this.#deps.lookup.now();
    const meaning = meaningOf(output, { vin: this.#vehicle?.vin ?? '', ignition: this.#ignition, now });
    if (meaning.kind === 'dropped') {
      this.#count(meaning.outcome);
      this.#deps.logger.debug({ imei: this.#imei, reason: meaning.outcome, detail: meaning.problem }, 'GT06 bytes dropped; connection kept');
      return;
    }
    if (meaning.kind === 'login') return this.#login(meaning.imei, meaning.answer);
    if (!this.#vehicle) {
      this.#count('before_login');
      return;
    }
    switch (meaning.kind) {
      case 'heartbeat':
      case 'time-request': return this.#answer(meaning.answer);
      case 'location':
      case 'alarm': return this.#store(meaning.record, meaning.ignition, meaning.answer, now);
      case 'command-answer': return this.#commandAnswer(meaning.serverFlag, meaning.text);
      case 'other':
        this.#count('accepted');
    }
  }

  #answer(frame: Buffer): void {
    this.#count('accepted');
    this.#socket.write(frame);
    this.#deps.metrics.acks.inc(LABELS);
  }

  async #login(imei: string, answer: Buffer): Promise<void> {
    if (this.#imei !== undefined) {
      // Some devices log in again on the same connection: the same IMEI is answered again.
      if (imei === this.#imei && this.#vehicle) return this.#answer(answer);
      this.#deps.logger.debug({ imei: this.#imei, other: imei }, 'a second IMEI on one GT06 connection; closed');
      this.#socket.destroy();
      return;
    }
    this.#imei = imei;
    const vehicle = await this.#deps.lookup.find('gt06', imei);
    if (this.#closed) return;
    if (!vehicle) {
      this.#deps.metrics.unknownIds.inc(LABELS);
      this.#deps.lookup.logRefusal('gt06', imei, this.#socket.remoteAddress);
      this.#socket.destroy();
      return;
    }
    this.#vehicle = vehicle;
    clearTimeout(this.#loginDeadline);
    this.#socket.setTimeout(this.#deps.idleTimeoutMs);
    this.#deps.sessions.add(this);
    this.#answer(answer);
  }

  async #store(record: IncomingRecord, ignition: boolean | undefined, ack: Buffer | undefined, receivedAt: number): Promise<void> {
    const vehicle = await this.#deps.lookup.find('gt06', this.#imei!);
    if (vehicle?.vin !== this.#vehicle!.vin) {
      this.#deps.logger.info({ imei: this.#imei, vin: this.#vehicle!.vin, now: vehicle?.vin ?? null }, 'tracker no longer registered to the vehicle it logged in as; disconnected');
      this.#socket.destroy();
      return;
    }
    const records: IncomingRecord[] = [record];
    let stored: number;
    try {
      // A record dated in the future or before the data kept is refused by the intake and, as
      // Teltonika's are, still answered: the device would only send it again.
      stored = (await this.#deps.intake.deliver('gt06', this.#imei!, vehicle, records)).accepted;
    } catch (error) {
      this.#count('store_failed');
      this.#deps.logger.warn({ err: error, imei: this.#imei }, 'tracker records not stored; connection closed (an alarm is sent again on the next connection)');
      this.#socket.destroy();
      return;
    }
    this.#ignition = ignition;
    this.movement.note(records, receivedAt);
    if (this.#closed) return;
    if (stored > 0) this.#deps.metrics.records.inc(LABELS, stored);
    if (ack) this.#answer(ack);
    else this.#count('accepted');
  }

  #commandAnswer(flag: number, text: string): void {
    if (!this.#awaited.has(flag)) {
      this.#count('unmatched');
      this.#deps.logger.info({ imei: this.#imei, flag }, 'GT06 command answer for no command awaited (late, or another server\'s); ignored');
      return;
    }
    this.#count('accepted');
    this.#settle(flag, text);
  }

  #settle(flag: number, text: string | undefined, error?: Error): void {
    const awaited = this.#awaited.get(flag);
    if (!awaited) return;
    this.#awaited.delete(flag);
    clearTimeout(awaited.timer);
    if (text !== undefined) awaited.resolve(text);
    else awaited.reject(error ?? new Error('connection closed'));
  }

  #onClose(): void {
    this.#closed = true;
    clearTimeout(this.#loginDeadline);
    this.#queue.clear();
    this.#deps.metrics.open.dec(LABELS);
    this.#deps.sessions.remove(this);
    for (const flag of [...this.#awaited.keys()]) this.#settle(flag, undefined, new Error('connection closed before the answer'));
  }
}
