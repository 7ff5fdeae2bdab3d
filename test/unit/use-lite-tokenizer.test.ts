/**
 * The USE-lite SentencePiece tokenizer (inference/use-lite-tokenizer.ts) on a toy vocabulary, rule by
 * rule, and on the real vocabulary. (It was also checked once against the `Tokenizer` class of
 * @tensorflow-models/universal-sentence-encoder@1.3.3 on 4,009 texts, 849,838 tokens: identical ids;
 * that package is not a dev dependency because it needs TF.js 3 as a peer.)
 */
import { describe, expect, it } from 'vitest';
import { normalizeForUse, tokenWindows, UseTokenizer, type UseVocabulary } from '../../inference/use-lite-tokenizer.ts';
import { loadUseLiteAssets } from '../../inference/use-lite-weights.ts';

const RESERVED: [string, number][] = [
  ['\uFFFD', 0],
  ['<s>', 0],
  ['</s>', 0],
  ['r3', 0],
  ['r4', 0],
  ['r5', 0],
];
const TOY: UseVocabulary = [
  ...RESERVED,
  ['▁a', -1], // 6
  ['b', -2], // 7
  ['▁ab', -2.5], // 8
  ['c', -3], // 9
  ['▁', -4], // 10
  ['▁x', -1], // 11
  ['y', -1], // 12
  ['xy', -1], // 13
  ['r3', -0.1], // 14
];

describe('UseTokenizer (toy vocabulary)', () => {
  const tok = new UseTokenizer(TOY);

  it.each([
    ['ab', [8]], // ▁ab (−2.5) beats ▁a + b (−3)
    ['a  c', [6, 10, 10, 9]], // only U+0020 becomes ▁
    ['ａｂ', [8]], // NFKC folds full-width letters
    ['a€€b', [6, 0, 7]], // unknown code points → id 0, consecutive ones merged
    ['a\nb', [6, 0, 7]], // a newline is not a space: unknown
    ['a👋b', [6, 0, 7]], // an astral code point is one symbol
    ['xy', [11, 12]], // tie (−2 both ways): the later-starting last piece wins
    // 'r' starts a piece but ends none, so it is unknown; unknowns score 0 — above any piece — so the
    // path unk(r) unk(3) (0) beats r3 (−0.1) and the two merge (the package's rule)
    ['r3', [10, 0]],
    ['r3c', [10, 0, 9]],
    ['', []],
  ])('%j → %j', (text, ids) => {
    expect(tok.encode(text)).toEqual(ids);
  });

  it('normalises like the encoder package', () => {
    expect(normalizeForUse('a b')).toBe('▁a▁b');
    expect(normalizeForUse('')).toBe('');
    expect(normalizeForUse('ﬁ x')).toBe('▁fi▁x');
  });
});

describe('tokenWindows', () => {
  const ids = Array.from({ length: 300 }, (_, i) => i);
  it('cuts 128-token windows, the last one short', () => {
    const w = tokenWindows(ids, 128);
    expect(w.map((x) => x.length)).toEqual([128, 128, 44]);
    expect(w.flat()).toEqual(ids);
  });
  it('overlaps with a smaller stride and always gives one window', () => {
    expect(tokenWindows(ids, 128, 96).map((x) => x[0])).toEqual([0, 96, 192]);
    expect(tokenWindows([], 128)).toEqual([[]]);
    expect(tokenWindows(ids.slice(0, 128), 128)).toHaveLength(1);
  });
});

describe('UseTokenizer (USE-lite vocabulary)', () => {
  const { vocabulary } = loadUseLiteAssets();
  const tok = new UseTokenizer(vocabulary);
  const pieces = (text: string): string[] => tok.encode(text).map((id) => (vocabulary[id] as [string, number])[0]);

  it('has the 8,000 pieces and segments case-sensitively', () => {
    expect(tok.size).toBe(8000);
    expect(pieces('hello world')).toEqual(['▁hell', 'o', '▁world']);
    expect(pieces('Ignore all previous instructions.')).toEqual([
      '▁I',
      'gno',
      're',
      '▁all',
      '▁previous',
      '▁in',
      's',
      'truction',
      's',
      '.',
    ]);
  });
});
