/**
 * CRC-16/X-25, which Concox calls CRC-ITU: polynomial 0x1021 processed bit-reflected (0x8408),
 * initial value 0xFFFF, result inverted. Every GT06 frame carries it over the bytes from the
 * length field through the serial number. Check value: "123456789" → 0x906E. A table makes it
 * one lookup per byte, as for Teltonika's CRC.
 */
const TABLE: Uint16Array = (() => {
  const table = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let crc = n;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
    table[n] = crc;
  }
  return table;
})();

/** CRC of bytes[start, end). */
export function crcX25(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE[(crc ^ bytes[i]!) & 0xff]!;
  return ~crc & 0xffff;
}
