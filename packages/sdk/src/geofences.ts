/** /geofences: the company's areas and corridors (D13), as GeoJSON. */
import { eachOfPages } from './pages.js';
import type { Transport } from './transport.js';
import type { Geofence, GeofenceBody, GeofencePreview, GeofencePreviewBody, GeofencesPage, RequestOptions } from './types.js';

const path = (id: string) => `/geofences/${encodeURIComponent(id)}`;

export interface GeofencesQuery {
  /** 1 to 200, default 100. */
  readonly limit?: number;
  /** A next_cursor of an earlier page. */
  readonly after?: string;
}

export class Geofences {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /** Not retried: a retry after a lost answer would create the fence twice. */
  async create(fence: GeofenceBody, options: RequestOptions = {}): Promise<Geofence> {
    return (await this.transport.json<Geofence>({ method: 'POST', path: '/geofences', json: fence, retry: 'never', ...options })).data;
  }

  /** One page of the company's fences, by name then id. */
  async page(query: GeofencesQuery = {}, options: RequestOptions = {}): Promise<GeofencesPage> {
    return (await this.transport.json<GeofencesPage>({ method: 'GET', path: '/geofences', query: { limit: query.limit, after: query.after }, retry: 'read', ...options })).data;
  }

  /** Every fence of the company, by name then id, page by page for as long as you iterate. */
  list(query: GeofencesQuery = {}, options: RequestOptions = {}): AsyncGenerator<Geofence> {
    return eachOfPages(query.after, (after) => this.page({ ...query, after }, options));
  }

  async get(id: string, options: RequestOptions = {}): Promise<Geofence> {
    return (await this.transport.json<Geofence>({ method: 'GET', path: path(id), retry: 'read', ...options })).data;
  }

  /** The body replaces the fence whole. Not retried: only reads are. */
  async replace(id: string, fence: GeofenceBody, options: RequestOptions = {}): Promise<Geofence> {
    return (await this.transport.json<Geofence>({ method: 'PUT', path: path(id), json: fence, retry: 'never', ...options })).data;
  }

  /**
   * The events a fence (`geofence`, not saved) or a saved one (`geofence_id`) would have fired over
   * the last `days` (1 to 7) of the company's positions. Writes nothing, so it is retried as a read.
   */
  async preview(body: GeofencePreviewBody, options: RequestOptions = {}): Promise<GeofencePreview> {
    return (await this.transport.json<GeofencePreview>({ method: 'POST', path: '/geofences/preview', json: body, retry: 'read', ...options })).data;
  }

  /** Not retried: a retry after a lost answer would be told 404 for a fence it did delete. */
  async delete(id: string, options: RequestOptions = {}): Promise<void> {
    await this.transport.json<undefined>({ method: 'DELETE', path: path(id), retry: 'never', ...options });
  }
}
