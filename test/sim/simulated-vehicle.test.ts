import { describe, expect, it } from 'vitest';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';
import { sampleTelemetry } from '../../src/sim/telemetry-sample.js';

const START = Date.UTC(2026, 10, 18, 0, 0, 0);
const run = (seed: number, hours: number, powertrain: 'combustion' | 'electric' = 'combustion', profile: 'normal' | 'moving' = 'normal') => {
  const v = new SimulatedVehicle({ vin: '9BWZZZ377VT100001', powertrain, profile, tankLiters: 50 }, seed);
  const samples = [];
  for (let t = START; t < START + hours * 3_600_000; t += 10_000) {
    v.step(t, 10);
    samples.push(sampleTelemetry(v, t, 0));
  }
  return { v, samples };
};

describe('simulated vehicle', () => {
  it('when run twice with the same seed, then it produces the same history; another seed, another one', () => {
    expect(run(7, 6).samples).toEqual(run(7, 6).samples);
    expect(run(8, 6).samples).not.toEqual(run(7, 6).samples);
  });

  it('when it drives, then speed, rpm and seat belt agree with the motion, and the odometer only grows', () => {
    const { samples } = run(3, 24);
    const moving = samples.filter((s) => (s.speed as number) > 0);
    expect(moving.length).toBeGreaterThan(100);
    for (const s of moving) {
      expect(s.rpm).toBeGreaterThan(0);
      expect(s.seat_belt_status).toBe('buckled');
    }
    for (let i = 1; i < samples.length; i += 1) expect(samples[i]!.odometer as number).toBeGreaterThanOrEqual(samples[i - 1]!.odometer as number);
  });

  it('when the tank runs low, then it drives to refuel and the level jumps back to full', () => {
    const { samples } = run(11, 24 * 6);
    const levels = samples.map((s) => s.fuel_level as number);
    const refuels = levels.filter((l, i) => i > 0 && l > levels[i - 1]!);
    expect(refuels.length).toBeGreaterThan(0);
    expect(refuels.every((l) => l === 100)).toBe(true);
    expect(Math.min(...levels)).toBeGreaterThan(5);
  });

  it('when an electric vehicle runs low, then it charges with the plug event at both ends', () => {
    const { samples } = run(5, 24 * 7, 'electric');
    const charging = samples.filter((s) => s.hv_battery_charging_status === 'charging');
    expect(charging.length).toBeGreaterThan(0);
    const events = samples.filter((s) => s.event === 'charging plug status change');
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(samples.every((s) => s.fuel_level === undefined && typeof s.hv_battery_soc === 'number')).toBe(true);
  });

  it('when the profile is moving, then it never parks', () => {
    const { samples } = run(2, 12, 'combustion', 'moving');
    const standing = samples.slice(30).filter((s) => s.seat_belt_status === 'not buckled');
    expect(standing).toEqual([]);
  });

  it('when immobilized while parked, then it stays put', () => {
    const v = new SimulatedVehicle({ vin: '9BWZZZ377VT100001', powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 1);
    v.immobilized = true;
    const before = v.odometerKm;
    for (let t = START; t < START + 48 * 3_600_000; t += 10_000) v.step(t, 10);
    expect(v.odometerKm).toBe(before);
    expect(v.driveLog).toEqual([]);
  });
});
