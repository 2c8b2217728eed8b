/**
 * Drops telemetry older than the retention period. `runTelemetryRetentionOnce` does one pass;
 * `telemetryRetentionWorker` is that pass for the periodic loop: at start, then every hour.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { StoreConnection } from '../store/connection.js';
import { dropTelemetryBefore, type RetentionReport } from '../store/telemetry/retention.js';
import type { PeriodicWorker } from '../workers/periodic.js';

/** Retention is counted in hours (`--telemetry-retention`): an hourly sweep keeps at most one hour extra. */
export const RETENTION_INTERVAL_MS = 3_600_000;

export function runTelemetryRetentionOnce(store: StoreConnection, clock: Clock, retentionMs: number): Promise<RetentionReport> {
  return dropTelemetryBefore(store, clock.now() - retentionMs);
}

export function telemetryRetentionWorker(store: StoreConnection, clock: Clock, retentionMs: number, logger: Logger): PeriodicWorker {
  return {
    name: 'telemetry retention',
    intervalMs: RETENTION_INTERVAL_MS,
    async runOnce() {
      const report = await runTelemetryRetentionOnce(store, clock, retentionMs);
      if (report.deletedRows > 0 || report.droppedPartitions.length > 0) logger.info(report, 'old telemetry dropped');
    },
  };
}
