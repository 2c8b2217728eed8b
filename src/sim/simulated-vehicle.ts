/**
 * One simulated vehicle: it parks, drives along São Paulo's main roads (road-network.ts) to random
 * destinations, refuels or charges, and its odometer, fuel or charge, speed, rpm and heading
 * follow from the motion.
 * `step` advances it by a fixed number of seconds; everything random comes from its own seeded
 * stream, so the same seed gives the same history.
 */
import { bearingDeg, distanceKm, moveKm, type Point } from '../domain/geo.js';
import type { SimProfile } from '../domain/vehicle.js';
import { SeededRandom } from './seeded-random.js';
import { CRUISE_KMH, saoPauloRoads, type RouteLeg } from './road-network.js';

export type Powertrain = 'combustion' | 'electric';
export type Activity = 'parked' | 'driving' | 'stopped' | 'refueling' | 'charging';

/** A finished drive, as the simulator saw it: what trip detection should find. */
export interface DriveLogEntry {
  readonly vin: string;
  readonly start: number;
  readonly end: number;
  readonly distanceKm: number;
}

export interface VehicleStart {
  readonly vin: string;
  readonly powertrain: Powertrain;
  readonly profile: SimProfile;
  /** Tank capacity in liters (combustion). */
  readonly tankLiters: number;
  /** Where it left off (last stored record), if anywhere. */
  readonly resume?: { readonly position: Point; readonly odometerKm: number; readonly energyPct: number | null };
}

const LITERS_PER_KM = 0.085;
const EV_BATTERY_KWH = 50;
const EV_KWH_PER_KM = 0.16;
const EV_CHARGE_KW = 7.2;
const MAX_ACCEL_KMH_PER_S = 9;
const MAX_BRAKE_KMH_PER_S = 14;
const ARRIVAL_KM = 0.03;
/** A turn sharper than this slows the vehicle down before the junction. */
const SHARP_TURN_DEG = 45;
const TURN_KMH = 20;

export class SimulatedVehicle {
  readonly vin: string;
  readonly powertrain: Powertrain;
  /** Changeable while the vehicle runs (`vehicle set --sim-profile` on a running service). */
  profile: SimProfile;
  readonly tankLiters: number;
  readonly #rng: SeededRandom;

  position: Point;
  odometerKm: number;
  /** Fuel level (combustion) or state of charge (electric), percent. */
  energyPct: number;
  speedKmh = 0;
  heading: number;
  activity: Activity = 'parked';
  /** When the current parked, stopped, refueling or charging spell ends (epoch ms). */
  #until = 0;
  #route: RouteLeg[] = [];
  #leg = 0;
  /** Per leg, the km of the legs after it: the distance left is one lookup a step. */
  #after: number[] = [];
  /** Where in its road class's cruise range this drive settles (0 slowest, 1 fastest). */
  #pace = 0.5;
  #needsEnergy = false;
  /** A remote `disable_ignition` keeps it parked until enabled again. */
  immobilized = false;
  coolantC = 25;
  lvVoltage = 12.6;
  oilPct: number;
  tires: [number, number, number, number];
  /** Set for one sample when the charging plug is connected or removed. */
  event: string | null = null;
  #driveStart: { at: number; odometerKm: number } | undefined;
  readonly driveLog: DriveLogEntry[] = [];

  constructor(start: VehicleStart, seed: number) {
    this.vin = start.vin;
    this.powertrain = start.powertrain;
    this.profile = start.profile;
    this.tankLiters = start.tankLiters;
    this.#rng = SeededRandom.derive(seed, start.vin);
    const r = this.#rng;
    const roads = saoPauloRoads();
    this.position = start.resume?.position ?? roads.nodes[Math.floor(r.next() * roads.nodes.length)]!;
    this.odometerKm = start.resume?.odometerKm ?? Math.round(r.between(5_000, 80_000));
    this.energyPct = start.resume?.energyPct ?? r.between(45, 95);
    this.heading = Math.floor(r.between(0, 360));
    this.oilPct = r.between(70, 100);
    this.tires = [r.between(225, 235), r.between(225, 235), r.between(215, 225), r.between(215, 225)];
  }

  get ignitionOn(): boolean {
    return this.activity === 'driving' || this.activity === 'stopped';
  }

  /** Advances the vehicle to `now`, `seconds` after the previous step. */
  step(now: number, seconds: number): void {
    this.event = null;
    switch (this.activity) {
      case 'parked': this.#whileParked(now); break;
      case 'charging': this.#whileCharging(now, seconds); break;
      case 'refueling':
        if (now >= this.#until) {
          this.energyPct = 100;
          this.#park(now, 1, 3);
        }
        break;
      case 'stopped':
        if (now >= this.#until) this.activity = 'driving';
        break;
      case 'driving': this.#whileDriving(now, seconds); break;
    }
    this.#driftSensors(seconds);
  }

  #whileParked(now: number): void {
    this.speedKmh = 0;
    if (this.powertrain === 'electric' && this.energyPct < 30) {
      this.activity = 'charging';
      this.event = 'charging plug status change';
      return;
    }
    if (now < this.#until || this.immobilized) return;
    this.#needsEnergy = this.powertrain === 'combustion' && this.energyPct < 15;
    this.#driveTo(this.#needsEnergy ? this.#destination(0.8, 2.5) : this.#destination(2, 18));
    this.#pace = this.#rng.next();
    this.activity = 'driving';
    this.#driveStart = { at: now, odometerKm: this.odometerKm };
  }

  #whileCharging(now: number, seconds: number): void {
    this.speedKmh = 0;
    this.energyPct = Math.min(100, this.energyPct + ((EV_CHARGE_KW * seconds) / 3600 / EV_BATTERY_KWH) * 100);
    if (this.energyPct >= 90) {
      this.event = 'charging plug status change';
      this.#park(now, 5, 40);
    }
  }

  #whileDriving(now: number, seconds: number): void {
    const leg = this.#route[this.#leg];
    const toTurn = leg ? distanceKm(this.position, leg.to) : 0;
    const remaining = toTurn + (this.#after[this.#leg] ?? 0);
    if (!leg || remaining <= ARRIVAL_KM) {
      this.#arrive(now);
      return;
    }
    if (this.profile !== 'moving' && this.#rng.chance(0.006 * seconds / 10)) {
      // A red light or a jam: stand for a while with the engine running.
      this.speedKmh = 0;
      this.activity = 'stopped';
      this.#until = now + this.#rng.between(20, 90) * 1000;
      return;
    }
    // Cruise by road class, slow down for a sharp turn and near the destination.
    const [slow, fast] = CRUISE_KMH[leg.roadClass];
    const cruise = slow + (fast - slow) * this.#pace + this.#rng.between(-8, 8);
    const turn = leg.turnDeg > SHARP_TURN_DEG ? TURN_KMH + toTurn * 300 : Infinity;
    const wanted = Math.min(cruise, turn, Math.max(12, remaining * 400));
    const change = Math.max(-MAX_BRAKE_KMH_PER_S * seconds, Math.min(MAX_ACCEL_KMH_PER_S * seconds, wanted - this.speedKmh));
    const previous = this.speedKmh;
    this.speedKmh = Math.max(0, Math.min(120, previous + change));
    const before = this.position;
    this.#advance(Math.min(remaining, (((previous + this.speedKmh) / 2) * seconds) / 3600));
    // What the positions say it drove: a sample cuts the corner of a junction passed between two samples.
    const km = distanceKm(before, this.position);
    this.odometerKm += km;
    this.#consume(km);
  }

  /** Moves `km` along the route, through as many junctions as that takes. */
  #advance(km: number): void {
    let left = km;
    while (left > 0 && this.#leg < this.#route.length) {
      const leg = this.#route[this.#leg]!;
      const toEnd = distanceKm(this.position, leg.to);
      if (toEnd > 0) this.heading = bearingDeg(this.position, leg.to);
      if (left < toEnd) {
        this.position = moveKm(this.position, this.heading, left);
        return;
      }
      this.position = leg.to;
      left -= toEnd;
      this.#leg += 1;
    }
  }

  #driveTo(node: number): void {
    this.#route = saoPauloRoads().route(this.position, node);
    this.#leg = 0;
    this.#after = this.#route.map(() => 0);
    for (let i = this.#route.length - 2; i >= 0; i -= 1) this.#after[i] = this.#after[i + 1]! + this.#route[i + 1]!.km;
  }

  #arrive(now: number): void {
    this.speedKmh = 0;
    this.#logDrive(now);
    if (this.#needsEnergy) {
      this.activity = 'refueling';
      this.#until = now + this.#rng.between(4, 8) * 60_000;
      this.#needsEnergy = false;
      return;
    }
    if (this.profile === 'moving') {
      this.#driveTo(this.#destination(2, 18));
      this.#driveStart = { at: now, odometerKm: this.odometerKm };
      return;
    }
    this.#park(now, 10, 150);
  }

  #park(now: number, minMinutes: number, maxMinutes: number): void {
    this.activity = 'parked';
    this.speedKmh = 0;
    this.#until = now + this.#rng.between(minMinutes, maxMinutes) * 60_000;
  }

  #logDrive(now: number): void {
    if (this.#driveStart) {
      this.driveLog.push({ vin: this.vin, start: this.#driveStart.at, end: now, distanceKm: this.odometerKm - this.#driveStart.odometerKm });
      this.#driveStart = undefined;
    }
  }

  /** A road node `minKm`–`maxKm` away as the crow flies (the nearest other node if none is). */
  #destination(minKm: number, maxKm: number): number {
    const roads = saoPauloRoads();
    const candidates = roads.nodesWithin(this.position, minKm, maxKm);
    if (candidates.length > 0) return this.#rng.pick(candidates);
    const here = roads.nearest(this.position);
    const away = (n: number) => distanceKm(roads.nodes[n]!, this.position);
    return roads.nodes.map((_, n) => n).filter((n) => n !== here).sort((a, b) => away(a) - away(b))[0] ?? here;
  }

  #consume(km: number): void {
    const pct = this.powertrain === 'combustion'
      ? ((km * LITERS_PER_KM) / this.tankLiters) * 100
      : ((km * EV_KWH_PER_KM) / EV_BATTERY_KWH) * 100;
    this.energyPct = Math.max(0, this.energyPct - pct);
    this.oilPct = Math.max(20, this.oilPct - km * 0.0005);
  }

  #driftSensors(seconds: number): void {
    const r = this.#rng;
    const running = this.ignitionOn;
    const ambient = 25;
    const engineTarget = running ? (this.powertrain === 'combustion' ? 90 : 45) : ambient;
    this.coolantC += (engineTarget - this.coolantC) * Math.min(1, seconds / 600) + r.between(-0.2, 0.2);
    const voltageTarget = running && this.powertrain === 'combustion' ? 14.1 : 12.55;
    this.lvVoltage += (voltageTarget - this.lvVoltage) * Math.min(1, seconds / 60) + r.between(-0.02, 0.02);
    this.tires = this.tires.map((p, i) => {
      const nominal = i < 2 ? 230 : 220;
      return p + (nominal - p) * 0.001 * seconds + r.between(-0.05, 0.05) * Math.sqrt(seconds);
    }) as [number, number, number, number];
  }

  /** Estimated range on what is left, km. */
  get rangeKm(): number {
    return this.powertrain === 'combustion'
      ? ((this.energyPct / 100) * this.tankLiters) / LITERS_PER_KM
      : ((this.energyPct / 100) * EV_BATTERY_KWH) / EV_KWH_PER_KM;
  }

  get rpm(): number {
    if (!this.ignitionOn) return 0;
    if (this.powertrain === 'electric') return this.speedKmh * 85;
    return this.speedKmh === 0 ? 780 + this.#rng.between(-20, 20) : Math.min(5500, 1000 + this.speedKmh * 32);
  }

  /** Draws from this vehicle's own stream (sampling glitches, GPS noise), keeping runs reproducible. */
  random(): SeededRandom {
    return this.#rng;
  }
}
