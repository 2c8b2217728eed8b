/**
 * Compiled by `npm test` (its typecheck step), never run: what the SDK's types promise a caller.
 * Each `@ts-expect-error` fails the build if the line below it ever compiles.
 */
import { expectTypeOf } from 'vitest';
import type { CommandOutcome, ErrorCode, TelematicsClient, TelematicsError, TelematicsEvent, Vehicle } from '@telematics/sdk';

export async function vehicleDataRowsAreTypedByTheRequestedDatapoints(client: TelematicsClient): Promise<void> {
  const data = await client.vehicleData.query({ vins: ['9BWZZZ377VT004251'], datapoints: ['speed', 'date_time', 'hv_battery_charging_status', 'flag'] });
  const row = data['9BWZZZ377VT004251']![0]!;
  expectTypeOf(row.speed).toEqualTypeOf<number | null>();
  expectTypeOf(row.date_time).toEqualTypeOf<string>();
  expectTypeOf(row.hv_battery_charging_status).toEqualTypeOf<string | null>();
  expectTypeOf(row.flag).toHaveProperty('speed');
  // @ts-expect-error a datapoint that was not requested is not on the row
  void row.latitude;
  // @ts-expect-error an unknown datapoint is a type error
  await client.vehicleData.query({ vins: ['9BWZZZ377VT004251'], datapoints: ['warp_factor'] });
}

export async function tripRowsAreTypedByTheRequestedFields(client: TelematicsClient): Promise<void> {
  const trips = await client.trips.query({ vins: ['9BWZZZ377VT004251'], datapoints: ['distance', 'start_date_time'] });
  const trip = trips['9BWZZZ377VT004251']![0]!;
  expectTypeOf(trip.distance).toEqualTypeOf<number | null>();
  expectTypeOf(trip.start_date_time).toEqualTypeOf<string>();
  // @ts-expect-error not requested
  void trip.max_speed;
  // @ts-expect-error `speed` is a vehicle-data datapoint, not a trip field
  await client.trips.query({ vins: ['9BWZZZ377VT004251'], datapoints: ['speed'] });
}

export async function commandOutcomesNarrowByStatus(client: TelematicsClient): Promise<void> {
  const handle = await client.commands.send('9BWZZZ377VT004251', 'disable_ignition', { confirm: ({ message }) => message.length > 0 });
  const outcome = await handle.wait({ timeoutMs: 60_000 });
  expectTypeOf(outcome).toEqualTypeOf<CommandOutcome>();
  if (outcome.status === 'Success') expectTypeOf(outcome.detail.odometer).toEqualTypeOf<number | null | undefined>();
  else expectTypeOf(outcome.detail).toEqualTypeOf<string>();
  // Commands outside the known list still go through (automakers add their own).
  await client.commands.send('9BWZZZ377VT004251', 'honk_horn');
}

export async function eventsNarrowByType(client: TelematicsClient): Promise<void> {
  for await (const event of client.events.stream({ types: ['trip.ended', 'vehicle.offline'] })) {
    if (event.type === 'trip.ended') expectTypeOf(event.data.duration).toEqualTypeOf<string>();
    if (event.type === 'vehicle.offline') expectTypeOf(event.data.last_record).toEqualTypeOf<string | null>();
  }
  expectTypeOf<TelematicsEvent<'webhook.verification'>['data']['challenge']>().toEqualTypeOf<string>();
  // @ts-expect-error not an event type
  client.events.list({ types: ['vehicle.exploded'] });
}

export function errorsCarryCatalogueCodes(error: TelematicsError): void {
  expectTypeOf(error.code).toEqualTypeOf<ErrorCode | undefined>();
  const code: ErrorCode = 'TLM_VIN_NOT_FOUND';
  // @ts-expect-error not a catalogue code
  const wrong: ErrorCode = 'TLM_NO_SUCH_THING';
  void code;
  void wrong;
}

export async function vehiclesAreTyped(client: TelematicsClient): Promise<void> {
  expectTypeOf(await client.vehicles.get('9BWZZZ377VT004251')).toEqualTypeOf<Vehicle>();
  expectTypeOf((await client.vehicles.list())[0]!.year).toEqualTypeOf<number>();
}
