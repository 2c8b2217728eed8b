/**
 * The client: one object per application, holding its credentials, its cached token and the
 * settings every call shares. Secrets belong on servers: in a browser, pass `tokenProvider`
 * (a token your backend issued) and no client secret or sign-secret.
 */
import { AlertRules } from './alert-rules.js';
import { Commands } from './commands.js';
import { Events } from './events.js';
import { Geofences } from './geofences.js';
import { ShareLinks } from './share-links.js';
import { CommandSigner } from './signing.js';
import { TokenSource, type IssuedToken } from './token-source.js';
import { Transport, type FetchLike } from './transport.js';
import { Trips } from './trips.js';
import { VehicleData } from './vehicle-data.js';
import { Vehicles } from './vehicles.js';
import { WebhookEndpoints } from './webhook-endpoints.js';
import { Webhooks } from './webhooks.js';

export interface TelematicsClientOptions {
  /** Where the service is, e.g. `http://localhost:8080`. */
  readonly baseUrl: string;
  /** The application's credentials, exchanged at POST /token. */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** The application's sign-secret: needed to send commands only. */
  readonly signSecret?: string;
  /** Instead of client credentials: answers a bearer token (e.g. from your backend). */
  readonly tokenProvider?: () => Promise<string> | string;
  /** Per attempt; default 60 s. */
  readonly timeoutMs?: number;
  /** Retries of what is safe to repeat; default 2. */
  readonly maxRetries?: number;
  /** Default: the global fetch. */
  readonly fetch?: FetchLike;
}

export class TelematicsClient {
  readonly vehicles: Vehicles;
  readonly vehicleData: VehicleData;
  readonly trips: Trips;
  readonly commands: Commands;
  readonly events: Events;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly webhooks: Webhooks;
  readonly geofences: Geofences;
  readonly alertRules: AlertRules;
  readonly shareLinks: ShareLinks;

  constructor(options: TelematicsClientOptions) {
    if (typeof options?.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    const fetchLike = options.fetch ?? ((url, init) => fetch(url, init));
    const common = { baseUrl, fetch: fetchLike, timeoutMs: options.timeoutMs ?? 60_000, maxRetries: options.maxRetries ?? 2 };
    const tokens = tokensOf(options, new Transport(common));
    const transport = new Transport({ ...common, tokens });
    this.vehicles = new Vehicles(transport);
    this.vehicleData = new VehicleData(transport);
    this.trips = new Trips(transport);
    this.commands = new Commands(transport, options.signSecret === undefined ? undefined : new CommandSigner(options.signSecret));
    this.events = new Events(transport);
    this.webhookEndpoints = new WebhookEndpoints(transport);
    this.webhooks = new Webhooks();
    this.geofences = new Geofences(transport);
    this.alertRules = new AlertRules(transport);
    this.shareLinks = new ShareLinks(transport);
  }
}

function tokensOf(options: TelematicsClientOptions, anonymous: Transport): { get(): Promise<string>; invalidate(token: string): void } {
  const { clientId, clientSecret, tokenProvider } = options;
  if (tokenProvider !== undefined) return { get: async () => tokenProvider(), invalidate: () => {} };
  if (clientId === undefined || clientSecret === undefined) throw new TypeError('pass clientId and clientSecret, or a tokenProvider');
  return new TokenSource(async () => (await anonymous.json<IssuedToken>({
    method: 'POST', path: '/token', form: { client_id: clientId, client_secret: clientSecret }, retry: 'read',
  })).data);
}
