/** Settings whose default depends on other settings, filled in once the given ones are read. */
import { dirname, join, basename } from 'node:path';
import { isPostgresUrl } from '../domain/database-url.js';
import { demoTrackerPorts } from '../gateway/tracker-ports.js';
import type { SettingValues } from './read-settings.js';
import type { ServiceConfig } from './settings.js';

/** Loopback, which `--demo` opens to webhooks beside the operator's own ranges. */
export const DEMO_WEBHOOK_CIDRS: readonly string[] = ['127.0.0.0/8', '::1/128'];

export function derivedSettings(values: SettingValues<ServiceConfig>): SettingValues<ServiceConfig> {
  const database = values.database!;
  const embedded = !isPostgresUrl(database);
  const role = values.role!;
  // The demo shows both paths: its fleet has simulated trackers, so it listens for them.
  const demoTrackers = values.demo === true && role.gateway;
  return {
    // The simulated fleet pushes to this process's API and its cloud is polled by this process's
    // command worker: it needs both halves in one process.
    sim: values.sim ?? (embedded && role.api && role.workers),
    gatewayHost: values.gatewayHost ?? values.host,
    ...(demoTrackers ? demoTrackerPorts(values) : {}),
    // The demo is tried on one machine, its webhook receiver beside it (examples/webhook-receiver.mjs).
    ...(values.demo === true ? { webhookAllowCidrs: [...(values.webhookAllowCidrs ?? []), ...DEMO_WEBHOOK_CIDRS] } : {}),
    keysFile: values.keysFile ?? (embedded && database !== ':memory:' ? defaultKeysFile(database) : undefined),
  };
}

/** The keys file kept beside a SQLite database: `data/telematics.db` → `data/telematics.db.keys.json`. */
export function defaultKeysFile(sqliteFile: string): string {
  return join(dirname(sqliteFile), `${basename(sqliteFile)}.keys.json`);
}
