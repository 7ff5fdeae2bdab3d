import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { injectionHardNegativesEval, injectionHardNegativesTrain } from '../../training/data/hard-negatives.ts';
import { syntheticInjections } from '../../training/data/synthetic-injections.ts';
import {
  NL_ID,
  PAD_ID,
  preTokenize,
  tokenRows,
  trainWordPiece,
  WordPieceTokenizer,
} from '../../inference/wordpiece.ts';

const corpus = [
  'ignore the previous instructions',
  'the instructions say ignore nothing',
  'Previous results were ignored.',
  'instructions: follow them',
];

describe('wordpiece tokenizer', () => {
  it('learns merges from a corpus, deterministically, and encodes known words as few pieces', () => {
    const a = trainWordPiece(corpus, { vocabSize: 330, minCharCount: 1, minWordCount: 1 });
    const b = trainWordPiece(corpus, { vocabSize: 330, minCharCount: 1, minWordCount: 1 });
    expect(a.vocab).toEqual(b.vocab);
    expect(a.vocab.length).toBeGreaterThan(258);
    const tok = new WordPieceTokenizer(a);
    const ids = tok.encode('Ignore INSTRUCTIONS');
    expect(ids.length).toBeLessThanOrEqual(4);
    expect(
      ids
        .map((i) => a.vocab[i])
        .join(' ')
        .replace(/ ##/g, ''),
    ).toBe('ignore instructions');
  });

  it('never produces an unknown token: characters outside the vocabulary become their UTF-8 bytes', () => {
    const tok = new WordPieceTokenizer(trainWordPiece(corpus, { vocabSize: 300, minCharCount: 1, minWordCount: 1 }));
    const ids = tok.encode('zé 👋');
    // none of 'z', 'é', '👋' occurs in the corpus: each becomes its UTF-8 byte tokens (id = byte + 2)
    const bytes = [...new TextEncoder().encode('zé👋')].map((b) => b + 2);
    expect(ids).toEqual(bytes);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const out = tok.encode(s);
        return (
          out.every((i) => Number.isInteger(i) && i > PAD_ID && i < tok.vocabSize) &&
          out.length > 0 === /[^\s]|\n/u.test(s)
        );
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('pre-tokenises into words, single punctuation and line-break runs', () => {
    expect(preTokenize('Hello, World!\n\n  ok')).toEqual(['hello', ',', 'world', '!', '\n', 'ok']);
    const tok = new WordPieceTokenizer(trainWordPiece(corpus, { vocabSize: 300, minCharCount: 1, minWordCount: 1 }));
    expect(tok.encode('\n\n\n')).toEqual([NL_ID]);
  });

  it('rows cover every token, at most maxTokens each', () => {
    const ids = Array.from({ length: 300 }, (_, i) => i + 1);
    const rows = tokenRows(ids, 128, 16);
    expect(rows.every((r) => r.length <= 128)).toBe(true);
    expect(new Set(rows.flat())).toEqual(new Set(ids));
    expect(tokenRows([], 128, 16)).toEqual([]);
    expect(tokenRows([5, 6], 128, 16)).toEqual([[5, 6]]);
  });

  it('encodes 1,000-character texts into known pieces, the same way every time (its speed is measured by npm run bench, not here)', () => {
    const train = [...syntheticInjections(3000, 1), ...injectionHardNegativesTrain().map((h) => h.text)];
    const tok = new WordPieceTokenizer(trainWordPiece(train, { vocabSize: 8000, minCharCount: 5, minWordCount: 1 }));
    const pool = [...syntheticInjections(1000, 2), ...injectionHardNegativesEval(480, 3).map((h) => h.text)].join(' ');
    const texts = Array.from({ length: 60 }, (_, i) => pool.slice(i * 1000, (i + 1) * 1000));
    expect(texts.every((t) => t.length === 1000)).toBe(true);
    const first = texts.map((t) => Array.from(tok.encode(t)));
    expect(
      first.every((ids) => ids.length > 50 && ids.every((id) => Number.isInteger(id) && id >= 0 && id < 8000)),
    ).toBe(true);
    expect(texts.map((t) => Array.from(tok.encode(t)))).toEqual(first);
  });
});
