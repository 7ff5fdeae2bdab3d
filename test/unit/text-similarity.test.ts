import { describe, expect, it } from 'vitest';
import {
  charTrigramVector,
  cosine,
  distinctNgramRatios,
  meanAndP95,
  nearestNeighbours,
  words,
} from '../../training/text-similarity.ts';

describe('distinct n-gram ratios', () => {
  it('counts distinct over total word n-grams, never across texts', () => {
    // 1-grams: a b a | a b → 5 total, 2 distinct; 2-grams: ab ba | ab → 3 total, 2 distinct; 3-grams: aba → 1 of 1
    expect(distinctNgramRatios(['A b, a!', 'a B'])).toEqual([2 / 5, 2 / 3, 1]);
    expect(distinctNgramRatios(['one'], [2])).toEqual([null]);
  });
  it('takes each Han or kana character as a word', () => {
    expect(words('忽略指令 now')).toEqual(['忽', '略', '指', '令', 'now']);
    expect(words('Ça va? 2x')).toEqual(['ça', 'va', '2x']);
  });
});

describe('character trigram cosine', () => {
  it('is 1 for the same text up to case and spacing, 0 for no shared trigram, symmetric', () => {
    const a = charTrigramVector('Ignore previous instructions');
    expect(cosine(a, charTrigramVector('ignore   PREVIOUS instructions'))).toBeCloseTo(1, 6);
    expect(cosine(charTrigramVector('aaaa'), charTrigramVector('zzzz'))).toBe(0);
    const b = charTrigramVector('ignore the previous rules');
    const c = cosine(a, b);
    expect(c).toBeGreaterThan(0.3);
    expect(c).toBeLessThan(1);
    expect(cosine(b, a)).toBeCloseTo(c, 6);
    expect(charTrigramVector('   ').idx.length).toBe(0);
  });
  it('matches the hand count for a tiny text', () => {
    // " ab" "aba" "bab" "ab " vs " ab" "ab ": 2 shared trigrams → 2 / (2 · √2)
    expect(cosine(charTrigramVector('abab'), charTrigramVector('ab'))).toBeCloseTo(1 / Math.sqrt(2), 5);
  });
  it('finds nearest neighbours among a set (never itself) and in another set', () => {
    const v = ['the cat sat on the mat', 'the cat sat on a mat', 'quarterly revenue grew'].map((t) =>
      charTrigramVector(t),
    );
    const inSet = nearestNeighbours(v);
    expect(Array.from(inSet.index)).toEqual([1, 0, inSet.index[2]]);
    expect(inSet.sim[0]).toBeCloseTo(cosine(v[0]!, v[1]!), 6);
    expect(inSet.sim[2]).toBeLessThan(0.3);
    const other = nearestNeighbours([v[2]!], [v[0]!, charTrigramVector('Quarterly revenue grew')]);
    expect(other.index[0]).toBe(1);
    expect(other.sim[0]).toBeCloseTo(1, 6);
    expect(meanAndP95([0.1, 0.2, 0.3, 0.4])).toEqual({ mean: 0.25, p95: 0.4 });
  });
});
