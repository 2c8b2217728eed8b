/**
 * What a share link's page reads: its vehicle's newest position, nothing else of the vehicle or
 * the company (not its speed, heading or VIN). A link that is unknown answers 404; revoked,
 * expired, or whose vehicle is not the company's, 410. The company's plan and the vehicle's
 * automaker still decide at every request: a plan that stopped including positions shows none.
 */
import type { SharedPosition } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { formatIsoWithOffset } from '../domain/time.js';
import { datapointAllowances } from '../events/datapoint-allowances.js';
import { findShareLinkByToken } from '../store/share-links-queries.js';
import { latestPosition } from '../store/telemetry/read.js';
import { findCompanyVehicle } from '../store/vehicles-queries.js';
import { SHARE_TOKEN, SHARED_DATAPOINTS, shareLinkState, shareTokenHash, type ShareLinkDeps } from './manage-share-links.js';

/** How far back the page looks for a position: the longest a link lives. */
const LOOK_BACK_MS = 7 * 24 * 3600 * 1000;

/** The link of `token`, if it still works: for the page itself, before it is sent. */
export async function openShareLink(deps: ShareLinkDeps, token: string) {
  const link = SHARE_TOKEN.test(token) ? await findShareLinkByToken(deps.store.db, shareTokenHash(token)) : undefined;
  if (!link) throw new ServiceError(errors.shareLinkNotFound);
  if (shareLinkState(link, deps.clock.now()) !== 'active' || !(await findCompanyVehicle(deps.store.db, link.company_id, link.vin))) {
    throw new ServiceError(errors.shareLinkGone);
  }
  return link;
}

export async function readSharedPosition(deps: ShareLinkDeps, token: string): Promise<SharedPosition> {
  const link = await openShareLink(deps, token);
  const now = deps.clock.now();
  const allowed = (await datapointAllowances(deps.store, link.company_id, [link.vin])).get(link.vin)!;
  const row = SHARED_DATAPOINTS.every(allowed) ? await latestPosition(deps.store.db, link.vin, now - LOOK_BACK_MS) : undefined;
  return {
    label: link.label,
    expires_at: formatIsoWithOffset(link.expires_at),
    position: row ? { latitude: Number(row.latitude), longitude: Number(row.longitude), recorded_at: formatIsoWithOffset(row.ts) } : null,
  };
}
