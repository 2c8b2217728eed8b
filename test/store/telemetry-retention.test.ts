import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTelemetryRetentionOnce } from '../../src/ingest/telemetry-retention.js';
import { insertTelemetry } from '../../src/store/telemetry/insert.js';
import { ensureTelemetryPartitions } from '../../src/store/telemetry/partitions.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS } from '../support/fixture-fleet.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

const HOUR = 3_600_000;
const RETENTION = 192 * HOUR;

describe.each(DATABASE_KINDS)('telemetry retention on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  const allTimestamps = async () => (await svc.store.db.selectFrom('telemetry').select(['vin', 'ts']).orderBy('vin').orderBy('ts').execute()).map((r) => `${r.vin}@${r.ts}`);

  it('when the clock passes the retention period, then older records go and nothing newer is touched', async () => {
    // Every 6 hours over the 8 days kept, for two VINs of two companies.
    const records = [];
    for (let t = T0 - RETENTION + HOUR; t <= T0; t += 6 * HOUR) {
      records.push({ vin: ALPHA_VINS[0], date_time: iso(t), speed: 1 }, { vin: BETA_VINS[1], date_time: iso(t), speed: 2 });
    }
    expect((await svc.ingest(records)).body.rejected).toEqual([]);
    const before = await allTimestamps();

    // Three days later, everything older than T0 + 3 days - 8 days must be gone.
    svc.clock.advance(72 * HOUR);
    const cutoff = svc.clock.now() - RETENTION;
    const report = await runTelemetryRetentionOnce(svc.store, svc.clock, RETENTION);
    const after = await allTimestamps();
    const expected = before.filter((key) => Number(key.split('@')[1]) >= cutoff);
    expect(after).toEqual(expected);
    expect(after.length).toBeGreaterThan(0);
    expect(after.length).toBeLessThan(before.length);
    if (kind === 'postgres') expect(report.droppedPartitions.length).toBeGreaterThanOrEqual(2);

    // A second pass finds nothing more to do.
    const again = await runTelemetryRetentionOnce(svc.store, svc.clock, RETENTION);
    expect(again).toEqual({ deletedRows: 0, droppedPartitions: [] });
    expect(await allTimestamps()).toEqual(expected);

    // Ingest still works on the surviving days: the oldest one kept (its partition straddles the
    // cutoff on PostgreSQL) and the newest.
    const oldestKept = cutoff + HOUR;
    const newest = svc.clock.now() - HOUR;
    expect((await svc.ingest([
      { vin: ALPHA_VINS[0], date_time: iso(oldestKept), speed: 3 }, { vin: ALPHA_VINS[0], date_time: iso(newest), speed: 4 },
    ])).body.rejected).toEqual([]);
    expect(new Set(await allTimestamps())).toEqual(new Set([...expected, `${ALPHA_VINS[0]}@${oldestKept}`, `${ALPHA_VINS[0]}@${newest}`]));

    // A day whose partition was dropped gets one again on demand: the store forgot it existed.
    const inDroppedDay = cutoff - 48 * HOUR;
    if (kind === 'postgres') expect(report.droppedPartitions).toContain(`telemetry_d${iso(inDroppedDay).slice(0, 10).replace(/-/g, '')}`);
    await ensureTelemetryPartitions(svc.store, [inDroppedDay]);
    await insertTelemetry(svc.store, [{ vin: ALPHA_VINS[0], ts: inDroppedDay, speed: 5, received_at: svc.clock.now() }]);
    expect(await allTimestamps()).toContain(`${ALPHA_VINS[0]}@${inDroppedDay}`);
    svc.clock.t = T0;
  });
});
