/**
 * A UUIDv7-shaped id (RFC 9562): the millisecond timestamp first, then random bits. Rows keyed
 * by it are appended at the right edge of their index instead of at random pages, which is most
 * of an insert's cost for a log written thousands of times a second (the webhook attempt log).
 */
export function timeOrderedId(now: number, random: () => string): string {
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  // `random` answers a v4 UUID: keep everything after its version digit.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random().slice(15)}`;
}
