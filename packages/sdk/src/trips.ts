import { queryBody } from './dates.js';
import type { Transport } from './transport.js';
import type { DateInput, RequestOptions, TripDatapointName, TripRow } from './types.js';

export interface TripsQuery<D extends TripDatapointName> {
  /** Up to 100 VINs. */
  readonly vins: readonly string[];
  /** The fields every trip holds, and only those. */
  readonly datapoints: readonly D[];
  /** Trips of which any part lies in the period. */
  readonly start_date?: DateInput;
  readonly end_date?: DateInput;
}

/** POST /vehicle-trips: trip summaries, typed by the fields asked for. */
export class Trips {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  async query<const D extends TripDatapointName>(query: TripsQuery<D>, options: RequestOptions = {}): Promise<Record<string, TripRow<D>[]>> {
    return (await this.transport.json<Record<string, TripRow<D>[]>>({ method: 'POST', path: '/vehicle-trips', json: queryBody(query), retry: 'read', ...options })).data;
  }
}
