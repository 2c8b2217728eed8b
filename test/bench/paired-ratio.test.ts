/**
 * The api benchmark's ratios (bench/lib/load.mjs): rounds run in alternate orders, a ratio is the
 * median over pairs of rounds of each pair's geometric mean, so a constant advantage of one place
 * in the order cancels within a pair; a figure run between two identical floors is judged against
 * both.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the benchmarks, without types
import { floorRounds, pairedRatio, ratioByOrder, roundsRange } from '../../bench/lib/load.mjs';

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
    const floor = [100, 100, 100, 100, 100];
    const service = [40, 40, 90, 90, 50];
    expect(pairedRatio(rates(service, floor), 'service', 'floor')).toBeCloseTo(0.5, 10);
    expect(pairedRatio(rates([40], [100]), 'service', 'floor')).toBeCloseTo(0.4, 10);
    expect(ratioByOrder(rates([40], [100]), 'service', 'floor')).toBe('0.40');
  });
});

describe('floorRounds', () => {
  it('when a figure is judged against two floors, then each round takes their geometric mean, and a slow place after the figure counts half', () => {
    // The floor run just after the figure loses 30 %; the two floors swap places every round.
    const r = {
      service: { rounds: [50, 50] },
      floor: { rounds: [100, 70] },
      twin: { rounds: [70, 100] },
    };
    const mean = Math.sqrt(100 * 70);
    for (const rate of floorRounds(r, ['floor', 'twin'])) expect(rate).toBeCloseTo(mean, 10);
    expect(floorRounds(r, 'floor')).toEqual([100, 70]);
    expect(pairedRatio(r, 'service', ['floor', 'twin'])).toBeCloseTo(50 / mean, 10);
  });
});
