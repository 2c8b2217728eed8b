/** The operations listener (`--ops-port`): /metrics, /healthz and /readyz on their own port. */
import { buildOpsApp } from '../http/build-ops-app.js';
import type { ServiceParts } from './service-parts.js';

export interface RunningOpsListener {
  readonly url: string;
  close(): Promise<void>;
}

export async function startOpsListener(parts: ServiceParts, port: number): Promise<RunningOpsListener> {
  const ops = await buildOpsApp({ store: parts.store, logger: parts.logger, readiness: parts.readiness }, parts.metrics);
  try {
    const url = await ops.listen({ port, host: parts.config.opsHost });
    return { url, close: () => ops.close() };
  } catch (error) {
    await ops.close();
    throw error;
  }
}
