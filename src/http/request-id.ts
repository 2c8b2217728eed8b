import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A caller's `X-Request-Id` is kept when it is short and plain, so logs can be joined across systems. */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CALLER_ID.test(given) ? given : randomUUID();
}
