import { describe, expect, it } from 'vitest';
import { hashString } from '../../inference/hashing.ts';
import {
  tokenize,
  TokenFeaturizer,
  tokenFeaturizerConfig,
  wordShapes,
  type Token,
} from '../../inference/token-features.ts';
import { piiSynthEval } from '../../training/data/pii-synth.ts';

/*
 * The token featurizer as first written (string per feature, one hash each; word shapes from the
 * shared wordShapes): the oracle that the allocation-free TokenFeaturizer must match id for id, so
 * the trained pii-ner model sees exactly the features it was trained on.
 */
const TEMPLATES = 25;
const CLASS_WORD = /[\p{L}\p{N}\p{M}]/u;

function referenceFeaturize(
  text: string,
  tokens: Token[],
  ids: Int32Array,
  values: Float32Array,
  rowOffset: number,
  L: number,
  mask: number,
): void {
  const n = tokens.length;
  const lw: string[] = new Array(n);
  const ss: string[] = new Array(n);
  const fs: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const t = (tokens[i] as Token).text;
    lw[i] = t.toLowerCase();
    const [f, s] = wordShapes(t);
    fs[i] = f;
    ss[i] = s;
  }
  const val = 1 / Math.sqrt(TEMPLATES);
  for (let i = 0; i < n; i++) {
    const tok = tokens[i] as Token;
    const w = lw[i] as string;
    const raw = tok.text;
    const sh = ss[i] as string;
    const isWord = CLASS_WORD.test(raw.charAt(0)) || (raw.charCodeAt(0) >= 0xd800 && raw.charCodeAt(0) <= 0xdfff);
    const first = raw.charAt(0);
    const isTitle = isWord && first !== first.toLowerCase() && raw.slice(1) === raw.slice(1).toLowerCase();
    const isUpper = isWord && raw.length > 1 && raw === raw.toUpperCase() && raw !== raw.toLowerCase();
    const isLower = isWord && raw === raw.toLowerCase() && raw !== raw.toUpperCase();
    const hasDigit = /\d/.test(raw);
    const flags = `${isWord ? 'w' : 'p'}${isTitle ? 'T' : ''}${isUpper ? 'U' : ''}${isLower ? 'l' : ''}${hasDigit ? 'd' : ''}`;
    const len = raw.length;
    const lenB = len <= 3 ? String(len) : len <= 5 ? '4-5' : len <= 8 ? '6-8' : '9+';
    const prev = i > 0 ? (lw[i - 1] as string) : '<s>';
    const prev2 = i > 1 ? (lw[i - 2] as string) : '<s>';
    const next = i + 1 < n ? (lw[i + 1] as string) : '</s>';
    const next2 = i + 2 < n ? (lw[i + 2] as string) : '</s>';
    const prevS = i > 0 ? (ss[i - 1] as string) : '<s>';
    const nextS = i + 1 < n ? (ss[i + 1] as string) : '</s>';
    const between = i > 0 ? text.slice((tokens[i - 1] as Token).end, tok.start) : '\n';
    const nlBefore = between.includes('\n');
    const sentStart = i === 0 || nlBefore || prev === '.' || prev === '!' || prev === '?' || prev === ':';
    const feats = [
      '',
      w,
      fs[i] as string,
      sh,
      w.slice(0, 1),
      w.slice(0, 2),
      w.slice(0, 3),
      w.length > 2 ? w.slice(-2) : '',
      w.length > 3 ? w.slice(-3) : '',
      w.length > 4 ? w.slice(-4) : '',
      flags,
      lenB,
      sentStart ? '1' : '0',
      nlBefore ? '1' : '0',
      prev,
      prevS,
      prev2,
      next,
      nextS,
      next2,
      `${prev}|${sh}`,
      `${w}|${next}`,
      `${prevS}|${sh}|${nextS}`,
      `${prev}|${w}`,
      `${sentStart ? 1 : 0}|${isTitle ? 1 : 0}|${isLower ? 1 : 0}`,
    ];
    const base = (rowOffset + i) * L;
    for (let k = 0; k < feats.length; k++) {
      ids[base + k] = hashString(Math.imul(k + 1, 0x27d4eb2f), feats[k] as string) & mask;
      values[base + k] = val;
    }
  }
}

function corpus(): string[] {
  return [
    ...piiSynthEval()
      .slice(0, 300)
      .map((s) => s.text),
    'My name is John Smith. I live at 221B Baker Street, London NW1 6XE.\nCall me: +44 20 7946 0958!',
    "Dr. O'Brien-Fournier met ÉLODIE at the café in São Paulo; İstanbul next? ΟΔΟΣ ΑΘΗΝΑΣ 12",
    'ALL CAPS TEXT WITH ACRONYMS LIKE NASA, U.S.A. AND IBM\n\n\nthen lower case after blank lines',
    '日本語のテキストと English mixed 👋 مرحبا، كيف حالك؟ Ünïcödé x1 X 9 a',
    'supercalifragilisticexpialidocious antidisestablishmentarianism a ab abc abcd abcde',
    '... ! ? : ; -- ** \t\t tabs\tand\r\nCRLF lines',
    '',
    'x',
  ];
}

/** Index of the first difference, or -1. */
function firstDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

function both(
  text: string,
  f: TokenFeaturizer,
): { got: Int32Array; want: Int32Array; gotV: Float32Array; wantV: Float32Array } {
  const L = f.config.max_features;
  const toks = tokenize(text);
  const got = new Int32Array(toks.length * L);
  const want = new Int32Array(toks.length * L);
  const gotV = new Float32Array(toks.length * L);
  const wantV = new Float32Array(toks.length * L);
  f.featurize(text, toks, got, gotV, 0);
  referenceFeaturize(text, toks, want, wantV, 0, L, f.config.buckets - 1);
  return { got, want, gotV, wantV };
}

describe('TokenFeaturizer matches the string-building oracle', () => {
  const f = new TokenFeaturizer(tokenFeaturizerConfig(1 << 17));

  it('id for id and value for value, on generated PII text, Unicode, edges and line breaks', () => {
    const texts = corpus();
    expect(texts.length).toBeGreaterThan(300);
    // Twice: the second pass reads every token from the cache.
    for (let pass = 0; pass < 2; pass++) {
      for (const text of texts) {
        const { got, want, gotV, wantV } = both(text, f);
        expect(firstDiff(got, want), text.slice(0, 80)).toBe(-1);
        expect(firstDiff(gotV, wantV)).toBe(-1);
      }
    }
  });

  it('still matches when the token cache fills and is cleared mid-text', () => {
    const text = Array.from({ length: 21_000 }, (_, i) => (i % 7 === 0 ? `Name${i}.` : `w${i}`)).join(' ');
    const { got, want } = both(text, f);
    expect(firstDiff(got, want)).toBe(-1);
  });

  it('writes at the row offset it is given and leaves other rows alone', () => {
    const L = f.config.max_features;
    const text = 'Paris is lovely.';
    const toks = tokenize(text);
    const ids = new Int32Array((toks.length + 2) * L).fill(-7);
    f.featurize(text, toks, ids, new Float32Array(ids.length), 2);
    expect([...ids.subarray(0, 2 * L)].every((x) => x === -7)).toBe(true);
    const { want } = both(text, f);
    expect(ids.subarray(2 * L)).toEqual(want);
  });
});

describe('tokenize', () => {
  const RE = /[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu;
  const byRegex = (text: string): Token[] =>
    [...text.matchAll(RE)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }));

  it('finds exactly the matches of the tokenizer regex, for every code unit and astral code points', () => {
    const texts: string[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      texts.push(`a${ch}b ${ch}${ch}.${ch}`);
    }
    for (let cp = 0x10000; cp < 0x110000; cp += 97) {
      const ch = String.fromCodePoint(cp);
      texts.push(`a${ch}b ${ch}${ch} ${ch}`);
    }
    // lone and reversed surrogates, combining marks, format and space characters side by side
    const parts = [
      'a',
      'Z',
      '7',
      ' ',
      '\n',
      '\u200b',
      '\ufeff',
      '\u0301',
      '\ud83d',
      '\ude00',
      '😀',
      '𝐀',
      '-',
      '\u00a0',
      '中',
      '\u3000',
      '\u180e',
    ];
    let seed = 7;
    for (let r = 0; r < 5_000; r++) {
      let s = '';
      for (let i = 0; i < 10; i++) {
        seed = Math.imul(seed, 1103515245) + 12345;
        s += parts[(seed >>> 8) % parts.length];
      }
      texts.push(s);
    }
    let differing = 0;
    for (const t of texts) if (JSON.stringify(tokenize(t)) !== JSON.stringify(byRegex(t))) differing++;
    expect(differing).toBe(0);
  });
});
