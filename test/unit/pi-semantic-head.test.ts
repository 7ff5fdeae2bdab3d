import { describe, expect, it } from 'vitest';
import { headLogit, headScore, parseHead, serializeHead, type LogisticHead } from '../../inference/logistic-head.ts';
import { columnStats, trainHead, zAverage } from '../../training/trainers/pi-semantic-head.ts';
import { mulberry32 } from '../../training/prng.ts';

/** Two gaussian blobs in 4-d separated along dimension 0; dimensions 1–3 are noise with other scales. */
function blobs(n: number, seed: number): { x: Float32Array; y: number[] } {
  const rng = mulberry32(seed);
  const x = new Float32Array(n * 4);
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const label = i % 3 === 0 ? 1 : 0; // imbalanced: a third positive
    y.push(label);
    x[i * 4] = (label ? 2 : -2) + rng() - 0.5;
    for (let j = 1; j < 4; j++) x[i * 4 + j] = (rng() - 0.5) * 10 * j + 5;
  }
  return { x, y };
}

describe('pi-semantic logistic head', () => {
  it('column stats are the per-dimension mean and (floored) std', () => {
    const { mean, std } = columnStats(new Float32Array([1, 5, 3, 5]), 2, 2);
    expect(mean).toEqual([2, 5]);
    expect(std[0]).toBeCloseTo(1, 6);
    expect(std[1]).toBe(1e-6);
  });

  it('the logit is bias + w · standardised x', () => {
    const head: LogisticHead = { dim: 2, mean: [1, -1], std: [2, 0.5], weights: [3, -1], bias: 0.25 };
    expect(headLogit(head, [5, 0])).toBeCloseTo(0.25 + 3 * 2 - 1 * 2, 10);
    expect(headLogit(head, [9, 9, 5, 0], 2)).toBeCloseTo(4.25, 10);
    expect(headScore(head, [5, 0])).toBeCloseTo(1 / (1 + Math.exp(-4.25)), 10);
    expect(headScore({ ...head, bias: -1e4 }, [0, 0])).toBe(0);
  });

  it('separates separable data, is deterministic, and puts the weight on the signal dimension', () => {
    const { x, y } = blobs(300, 7);
    const a = trainHead(x, y, 4, { epochs: 200 });
    const b = trainHead(x, y, 4, { epochs: 200 });
    expect(a).toEqual(b);
    const correct = y.filter((label, i) => (headScore(a, x, i * 4) >= 0.5 ? 1 : 0) === label).length;
    expect(correct / y.length).toBeGreaterThan(0.99);
    const w = a.weights.map(Math.abs);
    expect(w[0]).toBeGreaterThan(3 * Math.max(w[1] as number, w[2] as number, w[3] as number));
  });

  it('a larger L2 penalty gives smaller weights', () => {
    const { x, y } = blobs(200, 11);
    const loose = trainHead(x, y, 4, { l2: 1e-4, epochs: 150 });
    const tight = trainHead(x, y, 4, { l2: 1, epochs: 150 });
    const norm = (h: LogisticHead) => Math.hypot(...h.weights);
    expect(norm(tight)).toBeLessThan(norm(loose) / 2);
  });

  it('rejects x of the wrong size', () => {
    expect(() => trainHead(new Float32Array(7), [0, 1], 4)).toThrow(/expected 2 × 4/);
  });

  it('serialises to JSON and back with the same scores (6 significant digits)', () => {
    const { x, y } = blobs(120, 3);
    const head = trainHead(x, y, 4, { epochs: 100 });
    const back = parseHead(serializeHead(head));
    expect(back.dim).toBe(4);
    for (let i = 0; i < 120; i++) expect(headScore(back, x, i * 4)).toBeCloseTo(headScore(head, x, i * 4), 4);
  });

  it('refuses malformed heads', () => {
    const ok = { dim: 2, mean: [0, 0], std: [1, 1], weights: [1, 1], bias: 0 };
    expect(() => parseHead(JSON.stringify(ok))).not.toThrow();
    expect(() => parseHead(JSON.stringify({ ...ok, dim: 3 }))).toThrow(/mean must be 3/);
    expect(() => parseHead(JSON.stringify({ ...ok, std: [1, 0] }))).toThrow(/std/);
    expect(() => parseHead(JSON.stringify({ ...ok, weights: [1, 'x'] }))).toThrow(/weights/);
    expect(() => parseHead(JSON.stringify({ ...ok, bias: null }))).toThrow(/bias/);
  });

  it('z-averages logits standardised per column', () => {
    const z = zAverage([
      [0.5, 0.5, 0.5, 0.5],
      [0.1, 0.5, 0.9, 0.5],
    ]);
    // column 1 is constant: z = 0 (sd falls back to 1); column 2: logits -a, 0, a, 0 → ±a/sd
    const a = Math.log(9);
    const sd = Math.sqrt((2 * a * a) / 4);
    expect(z[0]).toBeCloseTo(-a / sd / 2, 10);
    expect(z[1]).toBeCloseTo(0, 10);
    expect(z[2]).toBeCloseTo(a / sd / 2, 10);
    expect(zAverage([])).toEqual([]);
    expect(() => zAverage([[0.1], [0.1, 0.2]])).toThrow(/length/);
  });
});
