/**
 * Who is handing records to the intake. The source decides which vehicles it may write for: an
 * automaker cloud writes for the VINs registered to that OEM; a tracker (the gateway) for the one
 * vehicle its device is paired with.
 */
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { vinsOfOem } from '../store/telemetry-queries.js';

export type TelemetrySource =
  | { readonly kind: 'oem'; readonly oem: string }
  | { readonly kind: 'device'; readonly protocol: string; readonly deviceId: string; readonly vin: string };

export interface SourceVehicles {
  has(vin: string): boolean;
  /** The rejection reason of a record for a VIN the source may not write. */
  refusal(vin: string): string;
}

/** The VINs the source may write for, from the registry cache: a source pushes the same fleet all day. */
/** `queued`: the records go to the ingest queue, so the last rows read serve while the database is away. */
export async function vehiclesOf(store: StoreConnection, source: TelemetrySource, queued = false): Promise<SourceVehicles> {
  if (source.kind === 'device') {
    return { has: (vin) => vin === source.vin, refusal: (vin) => `VIN ${vin} is not the vehicle of ${source.protocol} device ${source.deviceId}` };
  }
  const owned = await cachedRegistryRead(store, `oem-vins:${source.oem}`, () => vinsOfOem(store.db, source.oem), { lastKnownDuringOutage: queued });
  return { has: (vin) => owned.has(vin), refusal: (vin) => `VIN ${vin} is not registered to OEM ${source.oem}` };
}
