/**
 * Teltonika over UDP (research note §2.7): every datagram names its IMEI and carries a whole AVL
 * array, so each is checked and stored on its own, and answered with the 7-byte ack echoing the
 * packet id and the AVL packet id (a wrong AVL packet id makes devices resend forever). Unknown
 * IMEIs and undecodable datagrams get no answer. A datagram is decoded as it arrives (garbage
 * costs nothing after that); decoded ones wait in one queue per IMEI, handled in arrival order
 * so the ignition state threads through them as on TCP, while IMEIs proceed side by side. The
 * bytes waiting are capped; past the cap datagrams are dropped unanswered, and resent. Records for
 * an IMEI with a TCP session open here are counted and logged (datagrams-beside-sessions.ts).
 */
import type { Socket as UdpSocket, RemoteInfo } from 'node:dgram';
import type { Logger } from 'pino';
import type { DatagramsBesideSessions } from '../datagrams-beside-sessions.js';
import type { GatewayMetrics } from '../gateway-metrics.js';
import type { IntakeGroups } from '../intake-groups.js';
import type { TrackerLookup } from '../tracker-lookup.js';
import { udpAck } from './acks.js';
import { toIncomingRecords } from './to-incoming-records.js';
import { decodeUdpDatagram, type UdpDecode } from './udp-datagram.js';

const LABELS = { protocol: 'teltonika', transport: 'udp' } as const;
/** Ignition states kept for this many IMEIs; beyond that the oldest are forgotten (no event for their next change). */
const MAX_TRACKED = 50_000;
/** Bytes of decoded datagrams waiting to be stored; more are dropped (the device resends what was not acknowledged). */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

export class TeltonikaUdpHandler {
  readonly #socket: UdpSocket;
  readonly #lookup: TrackerLookup;
  readonly #intake: IntakeGroups;
  readonly #metrics: GatewayMetrics;
  readonly #logger: Logger;
  readonly #besideSessions: DatagramsBesideSessions;
  readonly #ignition = new Map<string, boolean | undefined>();
  /** The work queued per IMEI; an entry leaves when its chain settles. */
  readonly #chains = new Map<string, Promise<void>>();
  #queuedBytes = 0;

  constructor(socket: UdpSocket, lookup: TrackerLookup, intake: IntakeGroups, metrics: GatewayMetrics, logger: Logger, besideSessions: DatagramsBesideSessions) {
    this.#socket = socket;
    this.#lookup = lookup;
    this.#intake = intake;
    this.#metrics = metrics;
    this.#logger = logger;
    this.#besideSessions = besideSessions;
    socket.on('message', (datagram, peer) => this.#receive(datagram, peer));
  }

  #receive(datagram: Buffer, peer: RemoteInfo): void {
    const decoded = decodeUdpDatagram(datagram);
    if (!decoded.ok) {
      this.#metrics.packets.inc({ ...LABELS, outcome: decoded.reason });
      this.#logger.debug({ imei: decoded.imei, reason: decoded.reason, detail: decoded.detail, address: peer.address }, 'tracker datagram refused (no answer)');
      return;
    }
    if (this.#queuedBytes + datagram.length > MAX_QUEUED_BYTES) return;
    this.#queuedBytes += datagram.length;
    const chain = (this.#chains.get(decoded.imei) ?? Promise.resolve())
      .then(() => this.#handle(decoded, peer))
      .catch((error: unknown) => { this.#logger.warn({ err: error, imei: decoded.imei }, 'tracker datagram failed'); })
      .finally(() => {
        this.#queuedBytes -= datagram.length;
        if (this.#chains.get(decoded.imei) === chain) this.#chains.delete(decoded.imei);
      });
    this.#chains.set(decoded.imei, chain);
  }

  /** Settles once the datagrams received so far are handled. */
  async drained(): Promise<void> {
    await Promise.all([...this.#chains.values()]);
  }

  async #handle(decoded: Extract<UdpDecode, { ok: true }>, peer: RemoteInfo): Promise<void> {
    const vehicle = await this.#lookup.find('teltonika', decoded.imei);
    if (!vehicle) {
      this.#metrics.unknownIds.inc(LABELS);
      this.#metrics.packets.inc({ ...LABELS, outcome: 'unknown_id' });
      this.#lookup.logRefusal('teltonika', decoded.imei, peer.address);
      return;
    }
    this.#besideSessions.note('teltonika', decoded.imei, peer.address, decoded.avl.count);
    const { records, ignition } = toIncomingRecords(vehicle.vin, decoded.avl.records, this.#ignition.get(decoded.imei));
    try {
      await this.#intake.deliver('teltonika', decoded.imei, vehicle, records);
    } catch (error) {
      this.#metrics.packets.inc({ ...LABELS, outcome: 'store_failed' });
      this.#logger.warn({ err: error, imei: decoded.imei }, 'tracker records not stored; no answer (the tracker resends)');
      return;
    }
    this.#remember(decoded.imei, ignition);
    this.#metrics.packets.inc({ ...LABELS, outcome: 'accepted' });
    this.#metrics.records.inc(LABELS, decoded.avl.count);
    try {
      this.#socket.send(udpAck(decoded.packetId, decoded.avlPacketId, decoded.avl.count), peer.port, peer.address);
    } catch {
      return; // the listener closed while this was stored: the device resends, and it is stored once
    }
    this.#metrics.acks.inc(LABELS);
  }

  #remember(imei: string, ignition: boolean | undefined): void {
    this.#ignition.delete(imei);
    if (this.#ignition.size >= MAX_TRACKED) this.#ignition.delete(this.#ignition.keys().next().value!);
    this.#ignition.set(imei, ignition);
  }
}
