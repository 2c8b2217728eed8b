/** The `gateway` role: the tracker listeners that are configured, publishing to the queue when there is one. */
import { gatewaySettingsOf } from '../config/component-settings.js';
import type { ServiceConfig } from '../config/settings.js';
import { startGateway, type RunningGateway } from '../gateway/start-gateway.js';
import { trackerListenersWanted } from '../gateway/tracker-ports.js';
import type { ServiceParts } from './service-parts.js';

/** A gateway runs when this process has the role and a tracker port is set. */
export function gatewayWanted(config: ServiceConfig): boolean {
  return config.role.gateway && trackerListenersWanted(config);
}

export function startGatewayRole(parts: ServiceParts): Promise<RunningGateway> {
  const settings = gatewaySettingsOf(parts.config);
  return startGateway(parts.store, parts.clock, { ...settings, intake: { ...settings.intake, queue: parts.queue } }, parts.metrics.registry, parts.logger);
}
