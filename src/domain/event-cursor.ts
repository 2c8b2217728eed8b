/**
 * The feed's cursor: opaque to clients (a next_cursor of GET /events, an `id:` of the stream),
 * a position in the outbox inside. Opaque so its form can change without breaking clients; a
 * version tag inside so a later form can still read this one. Pure: no I/O.
 */
const PREFIX = 'ev1.';
const MAX_POSITION = Number.MAX_SAFE_INTEGER;

export function encodeEventCursor(position: number): string {
  return PREFIX + Buffer.from(position.toString(36)).toString('base64url');
}

/** The position a cursor stands for, or undefined when this service did not make it. */
export function decodeEventCursor(cursor: string): number | undefined {
  if (!cursor.startsWith(PREFIX) || cursor.length > 32) return undefined;
  const body = cursor.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return undefined;
  const text = Buffer.from(body, 'base64url').toString('latin1');
  if (!/^(0|[1-9a-z][0-9a-z]*)$/.test(text)) return undefined;
  const position = parseInt(text, 36);
  // Re-encoding must give the same text: one cursor per position, none smuggled in by padding.
  return position <= MAX_POSITION && encodeEventCursor(position) === cursor ? position : undefined;
}
