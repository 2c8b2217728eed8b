import { describe, expect, it } from 'vitest';
import { latencyRangeOf, loadOemSimConfig, OEM_SIM_SETTINGS } from '../../src/config/oem-sim-settings.js';
import { ConfigError } from '../../src/config/read-settings.js';
import { SETTINGS } from '../../src/config/settings.js';

const problemsOf = (flags: Parameters<typeof loadOemSimConfig>[0], env: NodeJS.ProcessEnv = {}) => {
  try {
    loadOemSimConfig(flags, env);
  } catch (error) {
    return (error as ConfigError).problems;
  }
  return [];
};

describe('oem-sim settings', () => {
  it('when nothing is set, then the cloud listens on loopback port 8090 with no key and the fleet has no backfill', () => {
    expect(loadOemSimConfig({}, {})).toMatchObject({
      port: 8090, host: '127.0.0.1', latency: '1500-6000', seed: 1, period: 10, backfill: 0, glitchRate: 0.002,
      apiKey: undefined, ingestKey: undefined, faultInitiateErrorRate: 0, faultStatusDelay: 0, faultHangStatus: false, logLevel: 'info',
    });
  });

  it('when the fleet\'s settings are given, then they are read with serve\'s rows (kinds and bounds) under oem-sim\'s flags, and never from serve\'s variables', () => {
    for (const [own, serve] of [['seed', 'simSeed'], ['period', 'simPeriod'], ['backfill', 'simBackfill'], ['glitchRate', 'simGlitchRate']] as const) {
      const a = OEM_SIM_SETTINGS.find((s) => s.key === own)!;
      const b = SETTINGS.find((s) => s.key === serve)!;
      expect([a.kind, a.min, a.max, a.env], own).toEqual([b.kind, b.min, b.max, undefined]);
    }
    expect(loadOemSimConfig({ seed: '9', backfill: '30m', period: '5' }, { TELEMATICS_SIM_SEED: '4' })).toMatchObject({ seed: 9, backfill: 30 * 60_000, period: 5 });
    expect(loadOemSimConfig({}, { TELEMATICS_SIM_SEED: '4', TELEMATICS_SIM_BACKFILL: '1d' })).toMatchObject({ seed: 1, backfill: 0 });
    expect(problemsOf({ backfill: '8d', seed: '-1', glitchRate: '2' })).toEqual([
      '--seed must be an integer from 0 to 2147483647, got "-1"',
      '--backfill must be a duration such as 2d, 36h, 90m, 45s or 0, from 0 to 7d, got "8d"',
      '--glitch-rate must be a number from 0 to 1, got "2"',
    ]);
  });

  it('when the keys come from the environment, then they are read there, a flag winning, and a short cloud key is one clear problem', () => {
    const key = 'k'.repeat(32);
    expect(loadOemSimConfig({}, { TELEMATICS_OEM_SIM_KEY: key, TELEMATICS_INGEST_KEY: 'ik' })).toMatchObject({ apiKey: key, ingestKey: 'ik' });
    expect(loadOemSimConfig({ ingestKey: 'flag' }, { TELEMATICS_INGEST_KEY: 'env', TELEMATICS_OEM_SIM_KEY: '' })).toMatchObject({ apiKey: undefined, ingestKey: 'flag' });
    expect(problemsOf({}, { TELEMATICS_OEM_SIM_KEY: 'short' })).toEqual(['--api-key (TELEMATICS_OEM_SIM_KEY) must be at least 32 characters']);
  });

  // The trackers' endpoints are each protocol's own option, checked by its simulated device
  // (test/gateway/simulated-devices.test.ts).
  it('when the latency is given, then it is checked and read as a range', () => {
    expect(latencyRangeOf(loadOemSimConfig({ latency: '100-200' }, {}))).toEqual([100, 200]);
    expect(problemsOf({ latency: '200-100' })).toEqual(['--latency must be MIN-MAX milliseconds, e.g. 1500-6000']);
  });
});
