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
}

const unreachable: OemConnector = {
  initiate: async () => { throw new OemFailure('send', 'no simulated automaker cloud is running'); },
  poll: async (): Promise<CommandState> => { throw new OemFailure('send', 'no simulated automaker cloud is running'); },
};

export class ConnectorRegistry {
  readonly #settings: ConnectorSettings;
  readonly #cache = new Map<string, OemConnector>();

  constructor(settings: ConnectorSettings) {
    this.#settings = settings;
  }

  for(oem: { connector: string; base_url: string | null }): OemConnector {
    const baseUrl = oem.connector === 'sim' ? this.#settings.simCloudUrl : oem.base_url ?? undefined;
    if (baseUrl === undefined) return unreachable;
    let connector = this.#cache.get(baseUrl);
    if (!connector) {
      connector = new HttpConnector({ baseUrl, initiateTimeoutMs: this.#settings.initiateTimeoutMs, pollTimeoutMs: this.#settings.pollTimeoutMs });
      this.#cache.set(baseUrl, connector);
    }
    return connector;
  }
}
