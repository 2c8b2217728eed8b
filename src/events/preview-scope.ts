/**
 * What both previews (POST /geofences/preview, POST /alert-rules/preview) are asked over, read the
 * one way: the thing to try, given in full (`geofence`, `rule`) or by the id of a saved one
 * (`geofence_id`, `rule_id`), either but not both; `days` back, 1 to 7 (default 7); `vins`, 1 to
 * 1,000 of the company's vehicles, or all of them. The company's vehicles are read once, to check
 * `vins` and to answer the VINs to judge, in VIN order. Each problem is answered by the preview's
 * own catalogue entry (`invalid`), naming the field.
 */
import type { ServiceError } from '../domain/errors.js';
import type { StoreConnection } from '../store/connection.js';
import { listCompanyVehicles } from '../store/vehicles-queries.js';

export const PREVIEW_DAYS = 7;
const MAX_VINS = 1000;

export interface PreviewNames {
  /** The field of the thing given in full, and what it is ("a fence to try"). */
  readonly object: string;
  readonly objectIs: string;
  /** The field of a saved one's id. */
  readonly id: string;
}

export interface PreviewScope {
  /** The thing given in full, or undefined when `id` is given. */
  readonly object: unknown;
  readonly id: unknown;
  readonly days: number;
  /** The VINs asked, without repeats; undefined: every vehicle of the company. */
  readonly vins: readonly string[] | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The scope of a preview body, or the first problem with it (thrown as `invalid(problem)`). */
export function parsePreviewScope(body: unknown, names: PreviewNames, invalid: (problem: string) => ServiceError): PreviewScope {
  const fields = [names.object, names.id, 'vins', 'days'];
  if (!isObject(body)) throw invalid(`the body must be an object with ${names.object} or ${names.id}`);
  const unknown = Object.keys(body).find((k) => !fields.includes(k));
  if (unknown !== undefined) throw invalid(`${unknown} is not a field of a preview (${fields.join(', ')})`);
  if ((body[names.object] === undefined) === (body[names.id] === undefined)) throw invalid(`give either ${names.object} (${names.objectIs}) or ${names.id} (a saved one)`);
  const days = body['days'] ?? PREVIEW_DAYS;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > PREVIEW_DAYS) throw invalid(`days must be a whole number from 1 to ${PREVIEW_DAYS}`);
  const vins = body['vins'];
  if (vins !== undefined && vins !== null && (!Array.isArray(vins) || vins.length === 0 || vins.length > MAX_VINS || !vins.every((v) => typeof v === 'string'))) {
    throw invalid(`vins must be a list of 1 to ${MAX_VINS} VINs of the company`);
  }
  return { object: body[names.object], id: body[names.id], days, vins: vins == null ? undefined : [...new Set(vins as string[])] };
}

/**
 * The company's vehicles to judge, by VIN: those asked (each must be the company's: the first
 * that is not is the problem), or all of them; `covers` narrows them further (a rule's own VINs).
 */
export async function previewVehicles(
  store: StoreConnection, companyId: string, asked: readonly string[] | undefined, invalid: (problem: string) => ServiceError,
  covers: (vin: string) => boolean = () => true,
): Promise<string[]> {
  const owned = (await listCompanyVehicles(store.db, companyId)).map((v) => v.vin).sort();
  if (asked === undefined) return owned.filter(covers);
  const ownedSet = new Set(owned);
  const foreign = asked.find((vin) => !ownedSet.has(vin));
  if (foreign !== undefined) throw invalid(`vins: ${foreign.slice(0, 40)} is not a vehicle of the company`);
  const askedSet = new Set(asked);
  return owned.filter((vin) => askedSet.has(vin) && covers(vin));
}
