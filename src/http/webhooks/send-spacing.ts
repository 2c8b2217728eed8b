import { errors, ServiceError } from '../../domain/errors.js';

const SEND_SPACING_MS = 5000;
/** Endpoints remembered at most; beyond it the memory starts over. */
const REMEMBERED_ENDPOINTS = 10_000;

/**
 * A send to an endpoint's URL on request (verify, test): at most one per endpoint every few
 * seconds, so the service is nobody's request cannon. The check throws `rateLimited` when the
 * endpoint's last send is too recent, and otherwise counts this one.
 */
export function sendSpacing(): (endpointId: string) => void {
  const lastSent = new Map<string, number>();
  return (id) => {
    const now = Date.now();
    const wait = (lastSent.get(id) ?? -Infinity) + SEND_SPACING_MS - now;
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new ServiceError(errors.rateLimited, { seconds: String(seconds) }, seconds);
    }
    if (lastSent.size >= REMEMBERED_ENDPOINTS) lastSent.clear();
    lastSent.set(id, now);
  };
}
