import { describe, expect, it } from 'vitest';
import { LatencySketch, SKETCH_RELATIVE_ACCURACY } from '../../lib/latency-sketch.ts';
import { mulberry32 } from '../../training/prng.ts';

const QUANTILES = [0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1];

/** The exact value at rank ⌊q·(n − 1)⌋. */
const exact = (sorted: number[], q: number) => sorted[Math.floor(q * (sorted.length - 1))]!;

function distributions(rand: () => number): Record<string, () => number> {
  return {
    uniform: () => 0.5 + rand() * 200,
    lognormal: () => Math.exp(2 + 1.5 * Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand())),
    bimodal: () => (rand() < 0.9 ? 3 + rand() : 4_000 + rand() * 1_000),
    heavy: () => 1 / (rand() || 1e-9) ** 1.2,
    tiny: () => rand() * 0.002,
  };
}

describe('LatencySketch (DDSketch, α = 1 %)', () => {
  it('answers every quantile within 1 % of the exact value, over several distributions and sizes', () => {
    const rand = mulberry32(20261124);
    for (const [name, draw] of Object.entries(distributions(rand))) {
      for (const n of [1, 2, 10, 1_000, 20_000]) {
        const values = Array.from({ length: n }, draw);
        const sketch = new LatencySketch();
        for (const v of values) sketch.add(v);
        const sorted = [...values].sort((a, b) => a - b);
        for (const q of QUANTILES) {
          const want = exact(sorted, q);
          const got = sketch.quantile(q)!;
          if (want <= 1e-3) expect(got, `${name} n=${n} q=${q}`).toBeLessThanOrEqual(1e-3 * 1.01);
          else
            expect(Math.abs(got - want) / want, `${name} n=${n} q=${q}`).toBeLessThanOrEqual(SKETCH_RELATIVE_ACCURACY);
        }
      }
    }
  });

  it('merges exactly: the merge of parts equals the sketch of the whole, in any grouping', () => {
    const rand = mulberry32(7);
    const draw = distributions(rand).lognormal!;
    const values = Array.from({ length: 5_000 }, draw);
    const whole = new LatencySketch();
    for (const v of values) whole.add(v);
    const parts = [0, 700, 2_000, 2_001, 5_000];
    const merged = new LatencySketch();
    for (let p = 0; p + 1 < parts.length; p++) {
      const part = new LatencySketch();
      for (const v of values.slice(parts[p], parts[p + 1])) part.add(v);
      merged.merge(LatencySketch.fromJSON(JSON.parse(JSON.stringify(part)) as ReturnType<LatencySketch['toJSON']>));
    }
    expect(merged.toJSON()).toEqual(whole.toJSON());
    for (const q of QUANTILES) expect(merged.quantile(q)).toBe(whole.quantile(q));
  });

  it('counts repeated values, keeps the exact extremes, and is null when empty', () => {
    const s = new LatencySketch();
    expect(s.quantile(0.5)).toBeNull();
    s.add(12.5, 3).add(0).add(800);
    expect(s.count).toBe(5);
    expect(s.quantile(0)).toBe(0);
    expect(s.quantile(1)).toBe(800);
    expect(Math.abs(s.quantile(0.5)! - 12.5) / 12.5).toBeLessThanOrEqual(0.01);
  });

  it('refuses values that are no latency, and data it cannot trust', () => {
    const s = new LatencySketch();
    for (const v of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => s.add(v)).toThrow(RangeError);
    expect(() => s.add(1, 0)).toThrow(RangeError);
    expect(() => s.quantile(1.5)).toThrow(RangeError);
    const data = s.add(5).toJSON();
    expect(() => LatencySketch.fromJSON({ ...data, alpha: 0.02 })).toThrow(/accuracy/);
    expect(() => LatencySketch.fromJSON({ ...data, count: 2 })).toThrow(/add up/);
    expect(() => LatencySketch.fromJSON({ ...data, buckets: { x: 1 } })).toThrow(RangeError);
  });
});
