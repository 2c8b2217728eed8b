/**
 * Drops telemetry older than the retention period. `runOnce` does one pass; `startTelemetryRetention`
 * repeats it every hour (and once at start) until stopped.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { StoreConnection } from '../store/connection.js';
import { dropTelemetryBefore, type RetentionReport } from '../store/telemetry-storage.js';

export const RETENTION_INTERVAL_MS = 3_600_000;

export function runTelemetryRetentionOnce(store: StoreConnection, clock: Clock, retentionMs: number): Promise<RetentionReport> {
  return dropTelemetryBefore(store, clock.now() - retentionMs);
}

export function startTelemetryRetention(store: StoreConnection, clock: Clock, retentionMs: number, logger: Logger): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const pass = () => {
    running = running.then(async () => {
      try {
        const report = await runTelemetryRetentionOnce(store, clock, retentionMs);
        if (report.deletedRows > 0 || report.droppedPartitions.length > 0) logger.info(report, 'old telemetry dropped');
      } catch (error) {
        logger.error({ err: error }, 'telemetry retention failed; retrying next hour');
      }
    });
  };
  pass();
  const timer = setInterval(pass, RETENTION_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
