import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A caller's `X-Request-Id` is kept when it is short and plain, so logs can be joined across systems. */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A caller's id the service keeps; our own UUIDs pass too, so no request id needs JSON escaping. */
export const isPlainRequestId = (id: string): boolean => CALLER_ID.test(id);

export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && isPlainRequestId(given) ? given : randomUUID();
}
