/**
 * The api benchmark's ratios (bench/lib/load.mjs): rounds run in alternate orders, a ratio is the
 * median over pairs of rounds of each pair's geometric mean, so a constant advantage of one place
 * in the order cancels within a pair; a figure run between two identical floors is judged in each
 * round against the one run just before it.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the benchmarks, without types
import { floorRounds, orderOfRound, pairedRatio, ratioByOrder, roundsRange } from '../../bench/lib/load.mjs';

/** measureRates' shape for two kinds, from their per-round rates. */
const rates = (service: number[], floor: number[]) => ({ service: { rounds: service }, floor: { rounds: floor } });

describe('pairedRatio', () => {
  it('when the kind measured first in every other round gains a fixed share, then each pair cancels it', () => {
    // The service truly runs at 0.5 of the floor; whichever runs first gains 20 %.
    const floor = [1000, 1000, 900, 900, 1100, 1100];
    const service = floor.map((f, i) => (i % 2 === 0 ? f * 0.5 / 1.2 : f * 0.5 * 1.2));
    expect(pairedRatio(rates(service, floor), 'service', 'floor')).toBeCloseTo(0.5, 10);
    expect(ratioByOrder(rates(service, floor), 'service', 'floor')).toBe('0.42 | 0.60');
    expect(roundsRange(rates(service, floor), 'service', 'floor')).toBe('0.42–0.60');
  });

  it('when pairs differ, then the median pair is the figure, and a round without its pair counts alone', () => {
    // Pairs: √(0.4 × 0.6), √(0.9 × 0.9), and 0.45 alone; the median of the five rounds would be 0.6.
    const floor = [100, 100, 100, 100, 100];
    const service = [40, 60, 90, 90, 45];
    expect(pairedRatio(rates(service, floor), 'service', 'floor')).toBeCloseTo(Math.sqrt(0.24), 10);
    expect(pairedRatio(rates([40], [100]), 'service', 'floor')).toBeCloseTo(0.4, 10);
    expect(ratioByOrder(rates([40], [100]), 'service', 'floor')).toBe('0.40');
  });
});

describe('orderOfRound', () => {
  it('when rounds follow each other, then every other one runs the kinds backwards', () => {
    const runs = [{ name: 'floor' }, { name: 'figure' }, { name: 'twin' }];
    const names = (round: number) => orderOfRound(runs, round).map((r: { name: string }) => r.name);
    expect(names(0)).toEqual(['floor', 'figure', 'twin']);
    expect(names(1)).toEqual(['twin', 'figure', 'floor']);
    expect(names(2)).toEqual(['floor', 'figure', 'twin']);
    expect(runs.map((r) => r.name)).toEqual(['floor', 'figure', 'twin']);
  });
});

describe('floorRounds', () => {
  it('when a figure runs between two floors that swap places every round, then each round takes the one run just before it, never the one slowed by the figure before it', () => {
    // The floor run just after the figure loses 30 %: the first in the reversed rounds, the twin in the listed ones.
    const r = {
      service: { rounds: [50, 50] },
      floor: { rounds: [100, 70] },
      twin: { rounds: [70, 100] },
    };
    expect(floorRounds(r, ['floor', 'twin'])).toEqual([100, 100]);
    expect(floorRounds(r, 'floor')).toEqual([100, 70]);
    expect(pairedRatio(r, 'service', ['floor', 'twin'])).toBeCloseTo(0.5, 10);
    // Against the first process alone, the reversed round's slowed floor would flatter the figure.
    expect(pairedRatio(r, 'service', 'floor')).toBeGreaterThan(0.55);
  });
});
