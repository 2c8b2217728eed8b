/**
 * A GT06/Concox tracker as the service sees one: a real TCP client speaking the device side of
 * the protocol (research note §2-§3). It logs in with its IMEI and waits for the login answer,
 * sends 0x22 locations, and answers 0x80 commands with an 0x21 frame carrying the command's server
 * flag back, as Concox firmware does.
 *
 * Locations get no answer in this protocol, so a device cannot know one was stored. The client
 * sends a heartbeat after its locations and waits for that answer: the server handles a
 * connection's frames in order, and closes it when a location could not be stored, so the
 * heartbeat's answer says every location before it was stored (what `send` resolves with).
 */
import { connect, type Socket } from 'node:net';
import { encodeCommandAnswer, encodeHeartbeat, encodeLocation, encodeLogin, type DeviceLocation } from './encode.js';
import { Gt06Framer, type Gt06Frame } from './framing.js';
import { PROTOCOL } from './messages.js';

export interface Gt06TrackerOptions {
  readonly host: string;
  readonly port: number;
  readonly imei: string;
  /** The device's answer to a command text (`Relay,1#`, `STATUS#`). */
  readonly onCommand?: (text: string) => string;
  /** The relay and ignition state its heartbeats report. */
  readonly state?: () => { readonly acc: boolean; readonly relayCut: boolean };
  /** How long to wait for each answer (a GT06 counts a timeout after 5 s). */
  readonly responseTimeoutMs?: number;
}

interface Waiter {
  readonly protocol: number;
  resolve(frame: Gt06Frame): void;
  reject(error: Error): void;
}

export class Gt06TrackerClient {
  readonly #options: Gt06TrackerOptions;
  #socket: Socket | undefined;
  #framer = new Gt06Framer();
  #waiters: Waiter[] = [];
  #closed = false;
  #serial = 0;
  /** Command texts received so far, in order. */
  readonly commands: string[] = [];

  constructor(options: Gt06TrackerOptions) {
    this.#options = options;
  }

  get connected(): boolean {
    return this.#socket !== undefined && !this.#closed;
  }

  /** Opens the connection and logs in; throws when the server closes it or does not answer. */
  async connect(): Promise<void> {
    const socket = connect({ host: this.#options.host, port: this.#options.port });
    this.#socket = socket;
    this.#closed = false;
    this.#framer = new Gt06Framer();
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#closed = true;
      for (const waiter of this.#waiters.splice(0)) waiter.reject(new Error('connection closed'));
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    await this.exchange(encodeLogin(this.#options.imei, this.#nextSerial()), PROTOCOL.login);
  }

  /** Sends locations, then a heartbeat, and resolves with how many were sent once it is answered. */
  async send(locations: readonly DeviceLocation[]): Promise<number> {
    if (!this.connected) throw new Error('not connected');
    const frames = locations.map((location) => encodeLocation(location, this.#nextSerial()));
    this.#socket!.write(Buffer.concat(frames));
    await this.heartbeat();
    return locations.length;
  }

  heartbeat(): Promise<Gt06Frame> {
    const state = this.#options.state?.() ?? { acc: false, relayCut: false };
    return this.exchange(encodeHeartbeat({ ...state, voltageLevel: 6, gsmSignal: 4 }, this.#nextSerial()), PROTOCOL.heartbeat);
  }

  /** Writes `bytes` and resolves with the next frame of protocol `answer` from the server. */
  exchange(bytes: Buffer, answer: number, timeoutMs = this.#options.responseTimeoutMs ?? 10_000): Promise<Gt06Frame> {
    if (this.#closed || !this.#socket) return Promise.reject(new Error('connection closed'));
    const answered = this.#await(answer, timeoutMs);
    this.#socket.write(bytes);
    return answered;
  }

  /** Writes bytes as they are (for tests of what a broken device sends). */
  write(bytes: Buffer): void {
    this.#socket?.write(bytes);
  }

  close(): void {
    this.#socket?.destroy();
  }

  /** Resolves once the server has closed the connection. */
  closedByServer(): Promise<void> {
    if (this.#closed || !this.#socket) return Promise.resolve();
    return new Promise((resolve) => this.#socket!.once('close', () => resolve()));
  }

  #nextSerial(): number {
    this.#serial = (this.#serial + 1) & 0xffff;
    return this.#serial;
  }

  #await(protocol: number, timeoutMs: number): Promise<Gt06Frame> {
    return new Promise<Gt06Frame>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`no answer 0x${protocol.toString(16)} from the server within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        protocol,
        resolve: (frame) => { clearTimeout(timer); resolve(frame); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      };
      this.#waiters.push(waiter);
    });
  }

  #receive(chunk: Buffer): void {
    for (const output of this.#framer.push(chunk)) {
      if (output.kind !== 'frame') continue;
      if (output.protocol === PROTOCOL.command) {
        this.#answer(output);
        continue;
      }
      const at = this.#waiters.findIndex((w) => w.protocol === output.protocol);
      if (at >= 0) this.#waiters.splice(at, 1)[0]!.resolve(output);
    }
  }

  /** 0x80 content: command length (4 + text), server flag, text[, language]. */
  #answer(frame: Gt06Frame): void {
    const { content } = frame;
    if (content.length < 5) return;
    const flag = content.readUInt32BE(1);
    const text = content.toString('latin1', 5, Math.min(content.length, 1 + content[0]!));
    this.commands.push(text);
    const answer = this.#options.onCommand?.(text) ?? 'Command error!';
    this.#socket?.write(encodeCommandAnswer(flag, answer, this.#nextSerial()));
  }
}
