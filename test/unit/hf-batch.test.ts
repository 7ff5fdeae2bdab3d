/**
 * The pure parts of serving operator-supplied Hugging Face models: how window rows are cut into
 * session runs, which window answers for a token two windows share (inference/hf-batch.ts), and the
 * BIO(ES) → entity aggregation (inference/hf-entities.ts).
 */
import { describe, expect, it } from 'vitest';
import { ownedRanges, planRuns, positiveScore } from '../../inference/hf-batch.ts';
import { aggregateEntities } from '../../inference/hf-entities.ts';

describe('planRuns', () => {
  it('sorts rows by length and cuts a run where padding would pass 25 %', () => {
    // 100, 90, 80: padding 10 + 20 of 300 cells (10 %); with 20 as well: 110 of 400 (27.5 %) → cut
    expect(planRuns([20, 100, 80, 90])).toEqual([[1, 3, 2], [0]]);
    expect(planRuns([30, 100, 80, 90])).toEqual([[1, 3, 2, 0]]); // 100 of 400: 25 % exactly
    expect(planRuns([64, 64, 64, 64])).toEqual([[0, 1, 2, 3]]);
    expect(planRuns([])).toEqual([]);
  });

  it('cuts a run at 2048 cells (4 full 512-token windows)', () => {
    const runs = planRuns(new Array<number>(10).fill(512));
    expect(runs.map((r) => r.length)).toEqual([4, 4, 2]);
    expect(planRuns(new Array<number>(70).fill(64)).map((r) => r.length)).toEqual([32, 32, 6]);
  });
});

describe('ownedRanges', () => {
  it('splits each overlap at its middle', () => {
    const windows = [
      { first: 0, last: 62 },
      { first: 54, last: 116 },
      { first: 108, last: 130 },
    ];
    expect(ownedRanges(windows)).toEqual([
      { from: 0, to: 58 },
      { from: 58, to: 112 },
      { from: 112, to: 130 },
    ]);
  });
});

describe('positiveScore', () => {
  it('sums the softmax of the positive labels; one logit is a sigmoid', () => {
    const logits = [0, Math.log(2), Math.log(3), 7];
    expect(positiveScore(logits, 0, 3, [1, 2])).toBeCloseTo(5 / 6, 10);
    expect(positiveScore(logits, 3, 1, [1])).toBeCloseTo(1 / (1 + Math.exp(-7)), 10);
  });
});

describe('aggregateEntities', () => {
  const labels = ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC', 'S-ORG', 'E-PER'];
  /** tokens of `text` split at spaces and '|' (no space), each with a one-hot-ish label */
  function run(text: string, tags: string[], p = 0.9) {
    const pieces: [number, number][] = [];
    const plain = text.replace(/\|/g, '');
    let at = 0;
    for (const word of text.split(' ')) {
      for (const piece of word.split('|')) {
        pieces.push([at, at + piece.length]);
        at += piece.length;
      }
      at += 1;
    }
    expect(pieces.length).toBe(tags.length);
    const probs = new Float32Array(tags.length * labels.length).fill((1 - p) / (labels.length - 1));
    tags.forEach((t, i) => (probs[i * labels.length + labels.indexOf(t)] = p));
    const starts = Int32Array.from(pieces, ([s]) => s);
    const ends = Int32Array.from(pieces, ([, e]) => e);
    return aggregateEntities(plain, starts, ends, probs, labels).map((e) => [plain.slice(e.start, e.end), e.type]);
  }

  it('B starts, I continues, a type change or O ends', () => {
    expect(run('Ada Lovelace met Bob in Paris', ['B-PER', 'I-PER', 'O', 'B-PER', 'O', 'B-LOC'])).toEqual([
      ['Ada Lovelace', 'PER'],
      ['Bob', 'PER'],
      ['Paris', 'LOC'],
    ]);
    expect(run('Ada Bob', ['B-PER', 'B-PER'])).toEqual([
      ['Ada', 'PER'],
      ['Bob', 'PER'],
    ]);
    // an I- of another type starts its own entity, as in the pipeline's "simple" strategy
    expect(run('Ada Paris', ['B-PER', 'I-LOC'])).toEqual([
      ['Ada', 'PER'],
      ['Paris', 'LOC'],
    ]);
    expect(run('Acme Ada Lovelace Bob', ['S-ORG', 'B-PER', 'E-PER', 'I-PER'])).toEqual([
      ['Acme', 'ORG'],
      ['Ada Lovelace', 'PER'],
      ['Bob', 'PER'],
    ]);
  });

  it("keeps a word's pieces together whatever their own labels", () => {
    expect(run('Zol|tan|ova lives', ['B-PER', 'O', 'B-LOC', 'O'])).toEqual([['Zoltanova', 'PER']]);
    expect(run('the Zol|tan', ['O', 'O', 'B-PER'])).toEqual([]);
    // punctuation glued to a word is not part of it
    expect(run('Ada|, hi', ['B-PER', 'I-PER', 'O'])).toEqual([['Ada,', 'PER']]);
    expect(run('Ada|, hi', ['B-PER', 'O', 'O'])).toEqual([['Ada', 'PER']]);
  });

  it('averages the tokens top probabilities', () => {
    const probs = Float32Array.from([0.1, 0.8, 0.1, 0, 0, 0, 0, 0.1, 0.1, 0.6, 0, 0.2, 0, 0]);
    const out = aggregateEntities('Ada Lovelace', Int32Array.from([0, 4]), Int32Array.from([3, 12]), probs, labels);
    expect(out).toEqual([{ type: 'PER', start: 0, end: 12, confidence: expect.closeTo(0.7, 6) }]);
  });
});
