/**
 * One Teltonika tracker on TCP (or TLS): login, AVL packets, Codec 12 answers (research note §1).
 * - The login is answered `01` when the IMEI belongs to a vehicle of a `device` OEM, else `00`
 *   and the connection is closed; nothing it sends is stored.
 * - A packet is acknowledged with its record count only after the intake has stored it (or
 *   refused its records as too old or malformed: those are never better on a resend). A CRC
 *   failure, an unknown codec or a malformed packet gets no ack and is counted: the tracker
 *   resends. A store failure gets no ack either, and the connection is closed so the tracker
 *   resends on a fresh one.
 * - Frames are handled one at a time with the socket paused, so a peer that pipelines cannot
 *   queue unbounded work; the framer bounds the bytes held.
 * - The records stored from this connection, and only those, are noted for the ignition
 *   interlock (session-movement.ts): a datagram naming the same IMEI cannot speak for it.
 * - Codec 12 frames are never acknowledged; a type 6 frame answers the command awaited. One
 *   command at a time (answers carry no id); a command claimed while a packet is being handled
 *   is written right after that packet's ack. A tracker that does not answer before the command's
 *   deadline is disconnected, so its late answer can never be taken for the next command's.
 * - Every packet checks again (through the registry cache) that the IMEI still names the same
 *   vehicle of a `device` OEM: a tracker moved or removed in the registry is disconnected.
 * - Garbage closes the connection at once. The login must come within the login timeout of the
 *   connection's start, whatever else arrives (keep-alive bytes do not extend it); after the
 *   login, silence for the idle timeout closes it.
 */
import type { Socket } from 'node:net';
import type { TrackedVehicle } from '../../store/vehicles-queries.js';
import type { TrackerTransport } from '../gateway-metrics.js';
import { FrameQueue } from '../frame-queue.js';
import { SessionMovement } from '../session-movement.js';
import type { TrackerListenerContext } from '../tracker-protocol-module.js';
import { CommandWithheld, type TrackerSession } from '../tracker-sessions.js';
import { loginAnswer, recordAck } from './acks.js';
import { decodeTcpPacket } from './decode.js';
import { CODEC12_RESPONSE, encodeCodec12 } from './codec12.js';
import { TeltonikaFramer, type TeltonikaFrame } from './framing.js';
import { toIncomingRecords } from './to-incoming-records.js';

export interface TeltonikaConnectionDeps extends Pick<TrackerListenerContext, 'lookup' | 'intake' | 'sessions' | 'metrics' | 'logger' | 'loginTimeoutMs' | 'idleTimeoutMs'> {
  readonly maxFrameBytes?: number;
}

interface AwaitedAnswer {
  resolve(text: string): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** The frame, until it is written (a packet was being handled when the command came). */
  frame: Buffer | undefined;
  mayWrite: (() => boolean) | undefined;
}

export class TeltonikaConnection implements TrackerSession {
  readonly protocol = 'teltonika';
  readonly #socket: Socket;
  readonly #deps: TeltonikaConnectionDeps;
  readonly #transport: TrackerTransport;
  readonly #framer: TeltonikaFramer;
  readonly #labels: { protocol: 'teltonika'; transport: TrackerTransport };
  readonly #queue: FrameQueue<TeltonikaFrame>;
  #closed = false;
  #imei: string | undefined;
  #vehicle: TrackedVehicle | undefined;
  #ignition: boolean | undefined;
  #awaited: AwaitedAnswer | undefined;
  readonly #loginDeadline: NodeJS.Timeout;
  readonly movement = new SessionMovement();

  constructor(socket: Socket, transport: TrackerTransport, deps: TeltonikaConnectionDeps) {
    this.#socket = socket;
    this.#deps = deps;
    this.#transport = transport;
    this.#labels = { protocol: 'teltonika', transport };
    this.#framer = new TeltonikaFramer(deps.maxFrameBytes === undefined ? {} : { maxFrameBytes: deps.maxFrameBytes });
    deps.metrics.connections.inc(this.#labels);
    deps.metrics.open.inc(this.#labels);
    socket.setNoDelay(true);
    this.#loginDeadline = setTimeout(() => socket.destroy(), deps.loginTimeoutMs);
    this.#loginDeadline.unref();
    socket.on('timeout', () => socket.destroy());
    this.#queue = new FrameQueue(socket, (frame) => this.#handle(frame), {
      closed: () => this.#closed,
      idle: () => this.#writeCommand(),
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

  get ready(): boolean {
    return !this.#closed && this.#vehicle !== undefined && !this.#queue.busy
      && this.#framer.buffered === 0 && this.#awaited === undefined;
  }

  /** Rejects only when the connection is gone or another command awaits its answer. */
  sendCommand(text: string, timeoutMs: number, mayWrite?: () => boolean): Promise<string> {
    if (this.#closed || this.#vehicle === undefined) return Promise.reject(new Error('connection closed'));
    if (this.#awaited) return Promise.reject(new Error('another command awaits its answer'));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#settleAnswer(undefined, new Error('no answer before the deadline'));
        this.#socket.destroy();
      }, timeoutMs);
      timer.unref();
      this.#awaited = { resolve, reject, timer, frame: encodeCodec12(text), mayWrite };
      if (!this.#queue.working) this.#writeCommand();
    });
  }

  #writeCommand(): void {
    const awaited = this.#awaited;
    if (!awaited?.frame || this.#closed) return;
    if (awaited.mayWrite && !awaited.mayWrite()) return this.#settleAnswer(undefined, new CommandWithheld());
    this.#socket.write(awaited.frame);
    awaited.frame = undefined;
  }

  close(): void {
    this.#socket.destroy();
  }

  async #handle(frame: TeltonikaFrame): Promise<void> {
    switch (frame.kind) {
      case 'ping': return;
      case 'invalid': return this.#refuseStream(frame.reason);
      case 'login': return this.#login(frame.imei);
      case 'packet': return this.#packet(frame.bytes);
    }
  }

  #refuseStream(reason: string): void {
    this.#deps.metrics.packets.inc({ ...this.#labels, outcome: 'invalid' });
    this.#deps.logger.debug({ reason, imei: this.#imei, address: this.#socket.remoteAddress }, 'not a Teltonika stream; connection closed');
    this.#socket.destroy();
  }

  async #login(imei: string): Promise<void> {
    if (this.#imei !== undefined) return this.#refuseStream('a second login on one connection');
    this.#imei = imei;
    const vehicle = await this.#deps.lookup.find('teltonika', imei);
    if (this.#closed) return;
    if (!vehicle) {
      this.#deps.metrics.unknownIds.inc(this.#labels);
      this.#deps.lookup.logRefusal('teltonika', imei, this.#socket.remoteAddress);
      this.#socket.end(loginAnswer(false));
      this.#closed = true;
      return;
    }
    this.#vehicle = vehicle;
    clearTimeout(this.#loginDeadline);
    this.#socket.setTimeout(this.#deps.idleTimeoutMs);
    this.#deps.sessions.add(this);
    this.#socket.write(loginAnswer(true));
  }

  async #packet(bytes: Buffer): Promise<void> {
    if (!this.#vehicle) return this.#refuseStream('a packet before the login');
    const vehicle = await this.#deps.lookup.find('teltonika', this.#imei!);
    if (vehicle?.vin !== this.#vehicle.vin) {
      this.#deps.logger.info({ imei: this.#imei, vin: this.#vehicle.vin, now: vehicle?.vin ?? null }, 'tracker no longer registered to the vehicle it logged in as; disconnected');
      this.#socket.destroy();
      return;
    }
    const decoded = decodeTcpPacket(bytes);
    if (!decoded.ok) {
      this.#deps.metrics.packets.inc({ ...this.#labels, outcome: decoded.reason });
      this.#deps.logger.debug({ imei: this.#imei, reason: decoded.reason, detail: decoded.detail }, 'tracker packet refused (no ack: the tracker resends)');
      return;
    }
    if (decoded.kind === 'codec12') {
      if (decoded.type === CODEC12_RESPONSE) this.#settleAnswer(decoded.text);
      return;
    }
    const receivedAt = this.#deps.lookup.now();
    const { records, ignition } = toIncomingRecords(vehicle.vin, decoded.records, this.#ignition);
    try {
      await this.#deps.intake.deliver('teltonika', this.#imei!, vehicle, records);
    } catch (error) {
      this.#deps.metrics.packets.inc({ ...this.#labels, outcome: 'store_failed' });
      this.#deps.logger.warn({ err: error, imei: this.#imei }, 'tracker records not stored; no ack, connection closed (the tracker resends)');
      this.#socket.destroy();
      return;
    }
    this.#ignition = ignition;
    this.movement.note(records, receivedAt);
    if (this.#closed) return;
    this.#deps.metrics.packets.inc({ ...this.#labels, outcome: 'accepted' });
    this.#deps.metrics.records.inc(this.#labels, decoded.count);
    this.#socket.write(recordAck(decoded.count));
    this.#deps.metrics.acks.inc(this.#labels);
  }

  #settleAnswer(text: string | undefined, error?: Error): void {
    const awaited = this.#awaited;
    if (!awaited) return;
    this.#awaited = undefined;
    clearTimeout(awaited.timer);
    if (text !== undefined) awaited.resolve(text);
    else awaited.reject(error ?? new Error('connection closed'));
  }

  #onClose(): void {
    this.#closed = true;
    clearTimeout(this.#loginDeadline);
    this.#queue.clear();
    this.#deps.metrics.open.dec(this.#labels);
    this.#deps.sessions.remove(this);
    this.#settleAnswer(undefined, new Error('connection closed before the answer'));
  }
}
