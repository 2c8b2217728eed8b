import type { Transport } from './transport.js';
import type { RequestOptions, Vehicle } from './types.js';

/** GET /vehicle and GET /vehicle/{vin}: the company's vehicles. */
export class Vehicles {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /** Every vehicle connected to the company. */
  async list(options: RequestOptions = {}): Promise<Vehicle[]> {
    return (await this.transport.json<Vehicle[]>({ method: 'GET', path: '/vehicle', retry: 'read', ...options })).data;
  }

  /** One vehicle; NotFoundError when the VIN is not the company's. */
  async get(vin: string, options: RequestOptions = {}): Promise<Vehicle> {
    return (await this.transport.json<Vehicle>({ method: 'GET', path: `/vehicle/${encodeURIComponent(vin)}`, retry: 'read', ...options })).data;
  }
}
