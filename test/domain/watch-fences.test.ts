/**
 * The drift rules of D13 on synthetic tracks, through the one function the live evaluator and the
 * preview share: jitter at rest makes no events, a drive through makes one enter and one exit,
 * sparse positions make a crossing, the dwell and the accuracy hold changes back.
 */
import { describe, expect, it } from 'vitest';
import { compileFence } from '../../src/domain/geofences/compile-fence.js';
import { indexedFenceSet } from '../../src/domain/geofences/indexed-fence-set.js';
import { DEFAULT_DRIFT_RULES } from '../../src/domain/geofences/judge-fence.js';
import { watchFences, type FenceWatchState, type WatchedPosition } from '../../src/domain/geofences/watch-fences.js';
import { DEPOT, driveThrough, offset, parkedWithJitter, sparseAcross, type TrackPosition } from '../support/geofence-tracks.js';

const T = Date.UTC(2026, 10, 20, 12, 0, 0);
const LATE_MS = 60_000;
const circle = (radiusM: number, id = 'depot') => ({ id, name: id, fence: compileFence({ kind: 'circle', center: [DEPOT.lon, DEPOT.lat], radiusM }) });
const start: FenceWatchState = { previous: undefined, fences: new Map() };
const live = (track: readonly TrackPosition[], accuracyM: number | null = null): WatchedPosition[] => track.map((p) => ({ ts: p.ts, lat: p.lat, lon: p.lon, accuracyM, receivedAt: p.ts + 500 }));
const kinds = (r: ReturnType<typeof watchFences>) => r.transitions.map((t) => t.transition);

describe('geofence drift rules', () => {
  const fences = indexedFenceSet([circle(100)]);

  it('when a vehicle is parked for an hour 60 m from the centre of a 100 m circle with ±40 m jitter, then one entered and no exit', () => {
    const result = watchFences(fences, start, live(parkedWithJitter(T, DEPOT, 60, 40, 3600)), DEFAULT_DRIFT_RULES, LATE_MS);
    expect(kinds(result)).toEqual(['entered']);
    expect(result.state.fences.get('depot')).toMatchObject({ inside: true });
  });

  it('when a vehicle is parked for an hour on the boundary, or just outside it, with ±20 m jitter, then no event at all', () => {
    for (const fromCenterM of [100, 115, 130]) {
      expect(kinds(watchFences(fences, start, live(parkedWithJitter(T, DEPOT, fromCenterM, 20, 3600, 10, 11)), DEFAULT_DRIFT_RULES, LATE_MS))).toEqual([]);
    }
  });

  it('when a vehicle is parked for an hour 40 m outside the circle with ±40 m jitter, then no event: one position inside now and then is not a visit, nor a crossing', () => {
    expect(kinds(watchFences(fences, start, live(parkedWithJitter(T, DEPOT, 140, 40, 3600, 10, 5)), DEFAULT_DRIFT_RULES, LATE_MS))).toEqual([]);
  });

  it('when the same parked track is judged in pieces with the state carried between them, then the same events as in one go', () => {
    const track = live(parkedWithJitter(T, DEPOT, 60, 40, 3600));
    let state = start;
    const pieces: string[] = [];
    for (let i = 0; i < track.length; i += 7) {
      const r = watchFences(fences, state, track.slice(i, i + 7), DEFAULT_DRIFT_RULES, LATE_MS);
      pieces.push(...kinds(r));
      state = r.state;
    }
    expect(pieces).toEqual(['entered']);
  });

  it('when a vehicle drives through, then exactly one entered and one exited, each dated at its confirming record', () => {
    const track = live(driveThrough(T, DEPOT, 1000, 36));
    const result = watchFences(indexedFenceSet([circle(500)]), start, track, DEFAULT_DRIFT_RULES, LATE_MS);
    expect(kinds(result)).toEqual(['entered', 'exited']);
    const [entered, exited] = result.transitions;
    expect(entered!.position.ts - T).toBeGreaterThanOrEqual(30_000);
    expect(exited!.position.ts).toBeGreaterThan(entered!.position.ts);
    expect(result.state.fences.size).toBe(0);
  });

  it('when two positions 2 km apart lie on either side of a 200 m fence, then one crossed and the state stays outside', () => {
    const result = watchFences(indexedFenceSet([circle(200)]), start, live(sparseAcross(T, DEPOT, 2000, 120)), DEFAULT_DRIFT_RULES, LATE_MS);
    expect(kinds(result)).toEqual(['crossed']);
    expect(result.state.fences.size).toBe(0);
  });

  it('when a vehicle drives through a fence too fast to dwell in it, then one crossed instead of an enter and an exit', () => {
    const result = watchFences(fences, start, live(driveThrough(T, DEPOT, 1000, 36)), DEFAULT_DRIFT_RULES, LATE_MS);
    expect(kinds(result)).toEqual(['crossed']);
    expect(result.state.fences.size).toBe(0);
  });

  it('when two sparse positions pass 300 m beside a 200 m fence, then nothing', () => {
    const beside = sparseAcross(T, offset(DEPOT, 0, 500), 2000, 120);
    expect(kinds(watchFences(indexedFenceSet([circle(200)]), start, live(beside), DEFAULT_DRIFT_RULES, LATE_MS))).toEqual([]);
  });

  it('when one position lands inside between outside ones, then no enter: the dwell wants two over 30 s', () => {
    const out = offset(DEPOT, 500, 0);
    const track: WatchedPosition[] = [
      { ts: T, lat: out.lat, lon: out.lon, accuracyM: null, receivedAt: T },
      { ts: T + 10_000, lat: DEPOT.lat, lon: DEPOT.lon, accuracyM: null, receivedAt: T + 10_000 },
      { ts: T + 20_000, lat: out.lat, lon: out.lon, accuracyM: null, receivedAt: T + 20_000 },
    ];
    expect(kinds(watchFences(fences, start, track, DEFAULT_DRIFT_RULES, LATE_MS))).toEqual([]);
  });

  it('when positions come with a poor accuracy, then an exit needs them farther out, and a cell-tower fix moves nothing', () => {
    const inside = watchFences(fences, start, live(parkedWithJitter(T, DEPOT, 0, 5, 120)), DEFAULT_DRIFT_RULES, LATE_MS).state;
    const justOut = live(parkedWithJitter(T + 200_000, DEPOT, 160, 5, 120));
    expect(kinds(watchFences(fences, inside, justOut, DEFAULT_DRIFT_RULES, LATE_MS))).toEqual(['exited']);
    expect(kinds(watchFences(fences, inside, justOut.map((p) => ({ ...p, accuracyM: 50 })), DEFAULT_DRIFT_RULES, LATE_MS))).toEqual([]);
    const farOut = live(parkedWithJitter(T + 200_000, DEPOT, 2000, 5, 120), 1500);
    expect(kinds(watchFences(fences, inside, farOut, DEFAULT_DRIFT_RULES, LATE_MS))).toEqual([]);
  });

  it('when a gap in the data follows an enter, then the state carries over: no invented exit', () => {
    const inside = watchFences(fences, start, live(parkedWithJitter(T, DEPOT, 0, 5, 120)), DEFAULT_DRIFT_RULES, LATE_MS);
    const after = watchFences(fences, inside.state, live(parkedWithJitter(T + 6 * 3_600_000, DEPOT, 10, 5, 60)), DEFAULT_DRIFT_RULES, LATE_MS);
    expect(kinds(after)).toEqual([]);
    expect(after.state.fences.get('depot')?.inside).toBe(true);
  });

  it('when the records were stored long after they were recorded, then their transitions are late', () => {
    const buffered = live(driveThrough(T, DEPOT, 1000, 36)).map((p) => ({ ...p, receivedAt: T + 3_600_000 }));
    const result = watchFences(indexedFenceSet([circle(500)]), start, buffered, DEFAULT_DRIFT_RULES, LATE_MS);
    expect(result.transitions.map((t) => [t.transition, t.late])).toEqual([['entered', true], ['exited', true]]);
  });

  it('when a fence is deleted, then its state goes with it', () => {
    const inside = watchFences(fences, start, live(parkedWithJitter(T, DEPOT, 0, 5, 120)), DEFAULT_DRIFT_RULES, LATE_MS);
    const result = watchFences(indexedFenceSet([]), inside.state, [], DEFAULT_DRIFT_RULES, LATE_MS);
    expect([...result.changed]).toEqual(['depot']);
    expect(result.state.fences.size).toBe(0);
  });
});
