/**
 * Which connector serves an OEM: `http` OEMs are reached at their configured base URL; `sim` OEMs
 * at the simulated cloud when one runs in this process (otherwise they are unreachable, and a
 * command to them fails with `Failed to send command to the OEM.`).
 */
import { HttpConnector } from './http-connector.js';
import { OemFailure, type CommandState, type OemConnector } from './oem-connector.js';

export interface ConnectorSettings {
  readonly initiateTimeoutMs: number;
  readonly pollTimeoutMs: number;
  /** Base URL of the simulated automaker cloud, when one runs. */
  simCloudUrl?: string | undefined;
  /** The secret that cloud requires (`Authorization: Bearer`), sent by the connector of `sim` OEMs only. */
  simCloudKey?: string | undefined;
}

const unreachable: OemConnector = {
  initiate: async () => { throw new OemFailure('send', 'no simulated automaker cloud is running'); },
  poll: async (): Promise<CommandState> => { throw new OemFailure('send', 'no simulated automaker cloud is running'); },
};

export class ConnectorRegistry {
  readonly #settings: ConnectorSettings;
  /** `http` OEMs by base URL. */
  readonly #cache = new Map<string, OemConnector>();
  /**
   * The simulated cloud's connector, apart from the http ones so its key never goes to an http OEM
   * (even one whose base URL equals the cloud's); remade when the cloud's URL or key change.
   */
  #sim: { readonly url: string; readonly key: string | undefined; readonly connector: OemConnector } | undefined;

  constructor(settings: ConnectorSettings) {
    this.#settings = settings;
  }

  #connector(baseUrl: string, apiKey: string | undefined): OemConnector {
    return new HttpConnector({ baseUrl, initiateTimeoutMs: this.#settings.initiateTimeoutMs, pollTimeoutMs: this.#settings.pollTimeoutMs, apiKey });
  }

  for(oem: { connector: string; base_url: string | null }): OemConnector {
    if (oem.connector === 'sim') {
      const { simCloudUrl: url, simCloudKey: key } = this.#settings;
      if (url === undefined) return unreachable;
      if (this.#sim?.url !== url || this.#sim.key !== key) this.#sim = { url, key, connector: this.#connector(url, key) };
      return this.#sim.connector;
    }
    const baseUrl = oem.base_url ?? undefined;
    if (baseUrl === undefined) return unreachable;
    let connector = this.#cache.get(baseUrl);
    if (!connector) {
      connector = this.#connector(baseUrl, undefined);
      this.#cache.set(baseUrl, connector);
    }
    return connector;
  }
}
