/**
 * What the server answers (research note §1, §2.7). The device resends a packet until it gets
 * the exact record count back, so the count must be the packet's "number of data", never a
 * partial one (a smaller count also means "resend everything"). Codec 12 frames get no answer.
 */

/** After the IMEI frame: 01 lets the device send records, 00 makes it hang up and retry later. */
export function loginAnswer(accepted: boolean): Buffer {
  return Buffer.from([accepted ? 1 : 0]);
}

/** After a TCP AVL packet: the number of records accepted, u32 big-endian. */
export function recordAck(count: number): Buffer {
  const ack = Buffer.alloc(4);
  ack.writeUInt32BE(count);
  return ack;
}

/**
 * After a UDP datagram: length 5, packet id, 01, AVL packet id, count. Traccar writes 0000 for
 * the packet id; both ids are echoed here because a wrong AVL packet id made an FMB920 resend
 * forever (filipkroca/teltonikaparser PR #12) and echoing the other costs nothing.
 */
export function udpAck(packetId: number, avlPacketId: number, count: number): Buffer {
  const ack = Buffer.alloc(7);
  ack.writeUInt16BE(5, 0);
  ack.writeUInt16BE(packetId, 2);
  ack.writeUInt8(1, 4);
  ack.writeUInt8(avlPacketId, 5);
  ack.writeUInt8(count, 6);
  return ack;
}
