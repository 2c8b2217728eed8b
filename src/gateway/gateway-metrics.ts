/**
 * What `/metrics` tells an operator about trackers, per protocol and transport: connections
 * (open now and ever), packets by outcome, records delivered, acknowledgements sent, ids that
 * are not registered, connections refused over the caps (`--tracker-connections`, its per-address
 * twin) or for lack of file descriptors, positions refused for their date, commands written to trackers, and UDP records naming
 * a tracker connected over TCP. A CRC failure or an unknown codec shows here as a packet outcome:
 * the tracker gets no ack and resends, so a rising count is the sign.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export type TrackerTransport = 'tcp' | 'tls' | 'udp' | 'http';
/**
 * `accepted` or why a packet got no ack; `date_out_of_range`: an OsmAnd request with positions
 * dated in the future or before the data kept (Teltonika acknowledges those: see the listener).
 * GT06 keeps its connection through `junk` (bytes before start bits), `crc`, `oversize` and
 * `malformed` frames, and drops frames sent `before_login`; `unmatched` is a command answer whose
 * server flag names no command awaited.
 */
export type PacketOutcome = 'accepted' | 'crc' | 'codec' | 'malformed' | 'invalid' | 'unknown_id' | 'store_failed' | 'date_out_of_range'
  | 'junk' | 'oversize' | 'before_login' | 'unmatched';

export class GatewayMetrics {
  readonly connections: Counter<'protocol' | 'transport'>;
  readonly open: Gauge<'protocol' | 'transport'>;
  readonly refused: Counter<'protocol' | 'transport' | 'reason'>;
  readonly packets: Counter<'protocol' | 'transport' | 'outcome'>;
  readonly records: Counter<'protocol' | 'transport'>;
  readonly acks: Counter<'protocol' | 'transport'>;
  readonly unknownIds: Counter<'protocol' | 'transport'>;
  readonly commands: Counter<'protocol' | 'outcome'>;
  readonly udpBesideSession: Counter<'protocol'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames = ['protocol', 'transport'] as const;
    this.connections = new Counter({ name: 'tracker_connections_total', help: 'Tracker connections accepted', labelNames, registers });
    this.open = new Gauge({ name: 'tracker_connections_open', help: 'Tracker connections open now', labelNames, registers });
    this.refused = new Counter({
      name: 'tracker_connections_refused_total', help: 'Tracker connections closed at once: all --tracker-connections open (reason total), --tracker-connections-per-address from one address (reason address), or the process out of file descriptors (reason descriptors)',
      labelNames: [...labelNames, 'reason'] as const, registers,
    });
    this.packets = new Counter({
      name: 'tracker_packets_total', help: 'Tracker packets (requests for OsmAnd) by outcome; only accepted ones are acknowledged',
      labelNames: [...labelNames, 'outcome'] as const, registers,
    });
    this.records = new Counter({ name: 'tracker_records_total', help: 'Records read from trackers and handed to the intake', labelNames, registers });
    this.acks = new Counter({ name: 'tracker_acks_total', help: 'Acknowledgements sent to trackers', labelNames, registers });
    this.unknownIds = new Counter({ name: 'tracker_unknown_ids_total', help: 'Logins and packets refused because the device id is not registered', labelNames, registers });
    this.commands = new Counter({
      name: 'tracker_commands_total', help: 'Commands to trackers: sent, answered, blocked (vehicle moving) or lost (connection closed before the answer)',
      labelNames: ['protocol', 'outcome'] as const, registers,
    });
    this.udpBesideSession = new Counter({
      name: 'tracker_udp_records_beside_session_total',
      help: 'Records received by UDP for a device id with a TCP or TLS session open on this gateway (likely spoofed: only the session\'s own records judge the ignition interlock)',
      labelNames: ['protocol'] as const, registers,
    });
  }
}
