import { queryBody } from './dates.js';
import type { Transport } from './transport.js';
import type { DatapointName, DateInput, RequestOptions, VehicleDataRow, VehicleLatest } from './types.js';

export interface VehicleDataQuery<D extends DatapointName> {
  /** Up to 20 VINs. */
  readonly vins: readonly string[];
  /** The fields every record holds, and only those. */
  readonly datapoints: readonly D[];
  /** Within the last 7 days; without dates, the last 24 hours. */
  readonly start_date?: DateInput;
  /** At most now, at most 24 h after start_date. */
  readonly end_date?: DateInput;
}

/** POST /vehicle-data: recorded telemetry, typed by the datapoints asked for. */
export class VehicleData {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /**
   * Records per VIN, oldest first. A window without records is a NotFoundError (`TLM_NO_DATA`),
   * as the service answers it.
   */
  async query<const D extends DatapointName>(query: VehicleDataQuery<D>, options: RequestOptions = {}): Promise<Record<string, VehicleDataRow<D>[]>> {
    return (await this.transport.json<Record<string, VehicleDataRow<D>[]>>({ method: 'POST', path: '/vehicle-data', json: queryBody(query), retry: 'read', ...options })).data;
  }

  /**
   * Every vehicle of the company, ordered by VIN, with its newest record and the state it implies
   * (moving, idle, parked, online, offline, no_data): a fleet screen in one call.
   */
  async latest(options: RequestOptions = {}): Promise<VehicleLatest[]> {
    return (await this.transport.json<VehicleLatest[]>({ method: 'GET', path: '/vehicle-data/latest', retry: 'read', ...options })).data;
  }
}
