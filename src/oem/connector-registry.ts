/**
 * Which connector serves an OEM: `http` OEMs are reached at their configured base URL; `sim` OEMs
 * at the simulated cloud when one runs in this process (otherwise they are unreachable, and a
 * command to them fails with `Failed to send command to the OEM.`); `device` OEMs through their
 * vehicles' trackers (the gateway's link, given by the composition root).
 */
import { HttpConnector } from './http-connector.js';
import { OemFailure, type CommandState, type ConnectorLookup, type OemConnector } from '../domain/oem-connector.js';

export interface ConnectorSettings {
  readonly initiateTimeoutMs: number;
  readonly pollTimeoutMs: number;
  /** Base URL of the simulated automaker cloud, when it is known before the registry is made. */
  readonly simCloudUrl?: string | undefined;
  /** The secret that cloud requires (`Authorization: Bearer`), sent by the connector of `sim` OEMs only. */
  readonly simCloudKey?: string | undefined;
  /** The link to vehicles reached through their own trackers (`device` OEMs). */
  readonly trackers?: OemConnector | undefined;
}

/** A connector that cannot reach its automaker; `why` is what the log says (create-command.ts logs a 502's cause). */
const unreachable = (why: string): OemConnector => ({
  initiate: async () => { throw new OemFailure('send', why); },
  poll: async (): Promise<CommandState> => { throw new OemFailure('send', why); },
});
const NO_SIM_CLOUD = unreachable('no simulated automaker cloud runs in this process (serve --sim starts one)');
const NO_BASE_URL = unreachable('the automaker has no base URL (admin oem set --base-url)');
const NO_TRACKER_LINK = unreachable('no link to trackers in this process');

export class ConnectorRegistry implements ConnectorLookup {
  readonly #initiateTimeoutMs: number;
  readonly #pollTimeoutMs: number;
  /** `http` OEMs by base URL. */
  readonly #cache = new Map<string, OemConnector>();
  /**
   * The simulated cloud's connector, apart from the http ones so its key never goes to an http OEM
   * (even one whose base URL equals the cloud's).
   */
  #sim: OemConnector = NO_SIM_CLOUD;
  readonly #trackers: OemConnector;

  /** The settings are read here, once: later changes to the object do not reach the registry. */
  constructor(settings: ConnectorSettings) {
    this.#initiateTimeoutMs = settings.initiateTimeoutMs;
    this.#pollTimeoutMs = settings.pollTimeoutMs;
    this.#trackers = settings.trackers ?? NO_TRACKER_LINK;
    this.useSimulatedCloud(settings.simCloudUrl, settings.simCloudKey);
  }

  /**
   * Sends `sim` OEMs to the simulated cloud at `url` with `key` from now on (`url` undefined: they
   * are unreachable again). The in-process cloud only starts once the API that holds this
   * registry listens (its fleet pushes there), hence a method rather than a constructor setting.
   */
  useSimulatedCloud(url: string | undefined, key: string | undefined): void {
    this.#sim = url === undefined ? NO_SIM_CLOUD : this.#connector(url, key);
  }

  #connector(baseUrl: string, apiKey: string | undefined): OemConnector {
    return new HttpConnector({ baseUrl, initiateTimeoutMs: this.#initiateTimeoutMs, pollTimeoutMs: this.#pollTimeoutMs, apiKey });
  }

  for(oem: { connector: string; base_url: string | null }): OemConnector {
    if (oem.connector === 'sim') return this.#sim;
    if (oem.connector === 'device') return this.#trackers;
    const baseUrl = oem.base_url ?? undefined;
    if (baseUrl === undefined) return NO_BASE_URL;
    let connector = this.#cache.get(baseUrl);
    if (!connector) {
      connector = this.#connector(baseUrl, undefined);
      this.#cache.set(baseUrl, connector);
    }
    return connector;
  }
}
