import { describe, expect, it } from 'vitest';
import { DAY_MS, partitionDay } from '../../src/store/telemetry/partitions.js';

describe('telemetry partition names', () => {
  it('when a day partition is named, then its day is the UTC day since the epoch', () => {
    expect(partitionDay('telemetry_d20261120')).toBe(Date.UTC(2026, 10, 20) / DAY_MS);
    expect(partitionDay('telemetry_d19700101')).toBe(0);
  });

  it('when the name is not a day partition, then it has no day', () => {
    for (const name of ['telemetry', 'telemetry_default', 'telemetry_d2026112', 'telemetry_d202611201', 'x_telemetry_d20261120']) {
      expect(partitionDay(name)).toBeUndefined();
    }
  });
});
