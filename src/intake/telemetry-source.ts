/**
 * Who is handing records to the intake. The source decides which vehicles it may write for: an
 * automaker cloud writes for the VINs registered to that OEM; a tracker (the gateway) for the one
 * vehicle its device is paired with.
 */
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { vinsOfOem } from '../store/vehicles-queries.js';
import { findTrackedVehicle } from '../store/vehicles-queries.js';

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

/**
 * The VINs a source named in a queued message may write for, read from the database, never from
 * the message: a tracker's pairing is looked up again (the edge that checked it may not be the
 * one that published). A message that names no source is refused before this (telemetry-writers.ts).
 */
export async function queuedSourceVehicles(store: StoreConnection, source: TelemetrySource): Promise<SourceVehicles> {
  if (source.kind === 'oem') return vehiclesOf(store, source);
  const { protocol, deviceId } = source;
  const paired = await cachedRegistryRead(store, `tracker:${protocol}:${deviceId}`, () => findTrackedVehicle(store.db, protocol, deviceId));
  return {
    has: (vin) => vin === source.vin && paired?.vin === vin,
    refusal: (vin) => `VIN ${vin} is not the vehicle of ${protocol} device ${deviceId}`,
  };
}
