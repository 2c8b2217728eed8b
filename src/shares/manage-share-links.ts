/**
 * Share links: one vehicle's live position for someone without an account (a customer waiting
 * for a delivery), read only, until it expires (at most 7 days) or is revoked. The secret is 256
 * random bits shown once, in the link; only its SHA-256 is kept. Creating and revoking one are
 * audit entries; opening one is not (anybody holding the link may, as often as the page polls).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  DEFAULT_SHARE_LINKS_PAGE, MAX_SHARE_LINKS_PAGE, SHARE_LINK_SECONDS, type ShareLink, type ShareLinkRequest, type ShareLinksPage, type ShareLinksQuery,
} from '@telematics/contract';
import { changeEntry, withAudit } from '../audit/record-audit.js';
import type { AuditDraft } from '../domain/audit-chain.js';
import { allows, parseNameSet } from '../domain/capabilities.js';
import type { AuditActor } from '../domain/audit-chain.js';
import type { Clock } from '../domain/clock.js';
import { errors, ServiceError } from '../domain/errors.js';
import { storedIdOf } from '../domain/resource-id.js';
import { formatIsoWithOffset } from '../domain/time.js';
import { timeOrderedId } from '../domain/time-ordered-id.js';
import { appendAuditEntries, lockAuditChain } from '../store/audit-queries.js';
import type { StoreConnection } from '../store/connection.js';
import { inTransaction } from '../store/in-transaction.js';
import { findCompany, findPlan, listOems } from '../store/registry-queries.js';
import {
  countOpenShareLinks, deleteEndedShareLinks, findShareLink, insertShareLink, listShareLinks, revokeShareLink, type ShareLinkRow,
} from '../store/share-links-queries.js';
import { findCompanyVehicle } from '../store/vehicles-queries.js';

export interface ShareLinkDeps {
  readonly store: StoreConnection;
  readonly clock: Clock;
}

/** Open links a vehicle may have at once: enough for every delivery of a day, not a flood of rows. */
export const MAX_OPEN_SHARE_LINKS = 50;
/** How long an ended link stays listed before it is deleted. */
const ENDED_KEPT_MS = 30 * 24 * 3600 * 1000;
/** What the page shows of the vehicle: its position, which the plan and the automaker must allow. Not its speed: a customer following a delivery has no business with the driver's. */
export const SHARED_DATAPOINTS = ['latitude', 'longitude'] as const;

export const shareTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');
export const SHARE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function shareLinkState(row: ShareLinkRow, now: number): ShareLink['state'] {
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at > now ? 'active' : 'expired';
}

export function shareLinkResource(row: ShareLinkRow, now: number): ShareLink {
  return {
    id: row.id, vin: row.vin, label: row.label, state: shareLinkState(row, now),
    created_at: formatIsoWithOffset(row.created_at), expires_at: formatIsoWithOffset(row.expires_at),
    revoked_at: row.revoked_at === null ? null : formatIsoWithOffset(row.revoked_at),
    created_by: { kind: row.created_by_kind as 'application' | 'user', id: row.created_by_id },
  };
}

/** The new link's resource and the secret that goes into its URL (`/share/<token>`), returned this once. */
export async function createShareLink(deps: ShareLinkDeps, companyId: string, body: ShareLinkRequest, actor: AuditActor): Promise<{ link: ShareLink; token: string }> {
  const now = deps.clock.now();
  const vehicle = await findCompanyVehicle(deps.store.db, companyId, body.vin);
  if (!vehicle) throw new ServiceError(errors.vinNotFound);
  await requirePositions(deps.store, companyId, vehicle.oem);
  const label = body.label?.trim() || null;
  const token = randomBytes(32).toString('base64url');
  const row: ShareLinkRow = {
    id: timeOrderedId(now, randomUUID), token_hash: shareTokenHash(token), company_id: companyId, vin: vehicle.vin, label,
    created_by_kind: actor.kind, created_by_id: actor.id, created_at: now, expires_at: now + (body.expires_in ?? SHARE_LINK_SECONDS.default) * 1000, revoked_at: null,
  };
  const entry = (_: unknown, who: AuditActor): AuditDraft => ({
    companyId, actor: who, action: 'share_link.created', target: row.id, outcome: 'success',
    details: { vin: row.vin, expires_at: formatIsoWithOffset(row.expires_at) },
  });
  await withAudit(deps.store.db, actor, entry, now, async (trx) => {
    // Creations of a company take turns from here (its audit chain's head), so two cannot both pass the cap's count.
    await lockAuditChain(trx, companyId);
    await deleteEndedShareLinks(trx, companyId, now - ENDED_KEPT_MS);
    if ((await countOpenShareLinks(trx, companyId, vehicle.vin, now)) >= MAX_OPEN_SHARE_LINKS) {
      throw new ServiceError(errors.tooManyShareLinks, { max: String(MAX_OPEN_SHARE_LINKS) });
    }
    await insertShareLink(trx, row);
  });
  return { link: shareLinkResource(row, now), token };
}

/** A link of a vehicle whose positions the company may not read would show an empty map: refused as POST /vehicle-data refuses them. */
async function requirePositions(store: StoreConnection, companyId: string, oem: string): Promise<void> {
  const automaker = (await listOems(store.db)).find((o) => o.name === oem);
  const supported = automaker ? parseNameSet(automaker.datapoints) : [];
  if (SHARED_DATAPOINTS.some((d) => !allows(supported, d))) throw new ServiceError(errors.unsupportedDatapoint);
  const company = await findCompany(store.db, companyId);
  const plan = company ? await findPlan(store.db, company.plan) : undefined;
  if (SHARED_DATAPOINTS.some((d) => !allows(plan ? parseNameSet(plan.datapoints) : [], d))) throw new ServiceError(errors.datapointNotInPlan);
}

function shareLinkIdOf(value: unknown): string {
  const id = storedIdOf(value);
  if (id === undefined) throw new ServiceError(errors.shareLinkNotFound);
  return id;
}

export async function readShareLink(deps: ShareLinkDeps, companyId: string, id: string): Promise<ShareLink> {
  const row = await findShareLink(deps.store.db, companyId, shareLinkIdOf(id));
  if (!row) throw new ServiceError(errors.shareLinkNotFound);
  return shareLinkResource(row, deps.clock.now());
}

export async function listCompanyShareLinks(deps: ShareLinkDeps, companyId: string, query: ShareLinksQuery): Promise<ShareLinksPage> {
  const limit = query.limit === undefined ? DEFAULT_SHARE_LINKS_PAGE : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SHARE_LINKS_PAGE || (query.limit !== undefined && !/^\d+$/.test(query.limit))) {
    throw new ServiceError(errors.invalidRequest, { reason: `limit must be an integer from 1 to ${MAX_SHARE_LINKS_PAGE}` });
  }
  const before = query.before === undefined ? undefined : storedIdOf(query.before);
  if (query.before !== undefined && before === undefined) throw new ServiceError(errors.invalidRequest, { reason: 'before must be a next_cursor of GET /share-links' });
  const now = deps.clock.now();
  const filter = { vin: query.vin, state: query.state, before };
  const rows = await listShareLinks(deps.store.db, companyId, filter, now, now - ENDED_KEPT_MS, limit + 1);
  const page = rows.slice(0, limit);
  return { data: page.map((row) => shareLinkResource(row, now)), next_cursor: rows.length > limit ? page[page.length - 1]!.id : null };
}

/** Revoking a revoked link changes nothing and is no error; an expired one is marked revoked too. */
export async function revokeCompanyShareLink(deps: ShareLinkDeps, companyId: string, id: string, actor: AuditActor): Promise<void> {
  const linkId = shareLinkIdOf(id);
  const now = deps.clock.now();
  const row = await findShareLink(deps.store.db, companyId, linkId);
  if (!row) throw new ServiceError(errors.shareLinkNotFound);
  if (row.revoked_at !== null) return;
  // Two revocations racing: the one that marks the row writes the entry, the other changes nothing.
  await inTransaction(deps.store.db, async (trx) => {
    if (!(await revokeShareLink(trx, companyId, linkId, now))) return;
    await appendAuditEntries(trx, [{ ...changeEntry(companyId, 'share_link.revoked', linkId)(null, actor), details: { vin: row.vin } }], now);
  });
}
