/**
 * A Teltonika tracker as the service sees one: a real TCP client speaking the device side of
 * the protocol (research note §1). It logs in with its IMEI and waits for `01`, sends AVL packets
 * and waits for each record-count ack, and answers Codec 12 commands with a type 6 frame, never
 * acknowledging them. The simulator drives simulated vehicles through it, and tests and the
 * benchmark use it as a device would.
 *
 * From the server come a 1-byte login answer, 4-byte acks and Codec 12 frames. An ack is
 * `00 00 00 NN` with NN > 0 (no packet is empty) and a Codec 12 frame starts with four zero
 * bytes, which tells them apart.
 */
import { connect, type Socket } from 'node:net';
import { encodeLogin, encodeTcpPacket } from './encode.js';
import { CODEC_8E, type AvlCodec, type AvlRecord } from './avl-record.js';
import { decodeTcpPacket } from './decode.js';
import { CODEC12_COMMAND, CODEC12_RESPONSE, encodeCodec12 } from './codec12.js';

export class TrackerRefused extends Error {
  constructor(imei: string) {
    super(`the server refused IMEI ${imei} (answer 00)`);
    this.name = 'TrackerRefused';
  }
}

export interface TeltonikaTrackerOptions {
  readonly host: string;
  readonly port: number;
  readonly imei: string;
  /** The device's answer to a Codec 12 command text (`setdigout 1`, `getinfo`). */
  readonly onCommand?: (text: string) => string;
  /** How long to wait for the login answer and for each ack (Teltonika's default response timeout is 30 s). */
  readonly responseTimeoutMs?: number;
}

interface Waiter {
  readonly bytes: number;
  resolve(value: Buffer): void;
  reject(error: Error): void;
}

export class TeltonikaTrackerClient {
  readonly #options: TeltonikaTrackerOptions;
  #socket: Socket | undefined;
  #buffer: Buffer = Buffer.alloc(0);
  #waiter: Waiter | undefined;
  #closed = false;
  /** Commands answered so far, in order. */
  readonly commands: string[] = [];

  constructor(options: TeltonikaTrackerOptions) {
    this.#options = options;
  }

  get connected(): boolean {
    return this.#socket !== undefined && !this.#closed;
  }

  /** Opens the connection and logs in; throws TrackerRefused on `00`. */
  async connect(): Promise<void> {
    const socket = connect({ host: this.#options.host, port: this.#options.port });
    this.#socket = socket;
    this.#closed = false;
    this.#buffer = Buffer.alloc(0);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#closed = true;
      this.#waiter?.reject(new Error('connection closed'));
      this.#waiter = undefined;
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.write(encodeLogin(this.#options.imei));
    const answer = await this.#read(1);
    if (answer[0] !== 1) {
      socket.destroy();
      throw new TrackerRefused(this.#options.imei);
    }
  }

  /** Sends one packet and resolves with the count the server acknowledged. */
  async send(records: readonly AvlRecord[], codec: AvlCodec = CODEC_8E): Promise<number> {
    return this.sendRaw(encodeTcpPacket(codec, records));
  }

  /** Writes bytes as they are and waits for an ack (for tests of what a broken device sends). */
  async sendRaw(bytes: Buffer): Promise<number> {
    if (!this.connected) throw new Error('not connected');
    this.#socket!.write(bytes);
    return (await this.#read(4)).readUInt32BE(0);
  }

  /** Writes bytes and expects no ack: resolves true when none came within `ms`. */
  async sendExpectingNoAck(bytes: Buffer, ms: number): Promise<boolean> {
    this.#socket!.write(bytes);
    try {
      await this.#read(4, ms);
      return false;
    } catch {
      return true;
    }
  }

  close(): void {
    this.#socket?.destroy();
  }

  /** Resolves once the server has closed the connection. */
  closedByServer(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#socket!.once('close', () => resolve()));
  }

  #read(bytes: number, timeoutMs = this.#options.responseTimeoutMs ?? 30_000): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      if (this.#closed) return reject(new Error('connection closed'));
      const timer = setTimeout(() => {
        this.#waiter = undefined;
        reject(new Error(`no answer from the server within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiter = {
        bytes,
        resolve: (value) => { clearTimeout(timer); resolve(value); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      };
      this.#deliver();
    });
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    this.#deliver();
  }

  #deliver(): void {
    for (;;) {
      // Codec 12 commands may come at any time after the login; they are answered at once.
      if (this.#buffer.length >= 8 && this.#waiter?.bytes !== 1 && this.#buffer.readUInt32BE(0) === 0) {
        const total = this.#buffer.readUInt32BE(4) + 12;
        if (this.#buffer.length < total) return;
        const frame = this.#buffer.subarray(0, total);
        this.#buffer = this.#buffer.subarray(total);
        this.#answer(frame);
        continue;
      }
      const waiter = this.#waiter;
      if (!waiter || this.#buffer.length < waiter.bytes) return;
      if (waiter.bytes === 4 && this.#buffer.readUInt32BE(0) === 0) return; // the start of a command frame: wait for it
      const value = this.#buffer.subarray(0, waiter.bytes);
      this.#buffer = this.#buffer.subarray(waiter.bytes);
      this.#waiter = undefined;
      waiter.resolve(Buffer.from(value));
    }
  }

  #answer(frame: Buffer): void {
    const decoded = decodeTcpPacket(Buffer.from(frame));
    if (!decoded.ok || decoded.kind !== 'codec12' || decoded.type !== CODEC12_COMMAND) return;
    this.commands.push(decoded.text);
    const answer = this.#options.onCommand?.(decoded.text) ?? `Unknown command: ${decoded.text}`;
    this.#socket?.write(encodeCodec12(answer, CODEC12_RESPONSE));
  }
}
