/**
 * Hashed feature bags of text classifiers (`hashed-text-v1`), shared by training and serving
 * (deterministic, allocation-light).
 *
 * The text, lowercased per UTF-16 code unit, is split into tokens — runs of letters,
 * digits and combining marks (`\p{L}\p{N}\p{M}`; surrogate halves count as letters, so emoji and
 * astral scripts form words) and runs of up to `punct_run_max` other non-space characters. Features:
 * word unigrams, word bigrams (over all tokens), and character n-grams (`char_ngrams` range) of each
 * word wrapped in boundary markers (`\u0001word\u0002`, first `char_ngram_max_word_chars` chars).
 * Every feature is hashed with FNV-1a 32 (a distinct seed per feature kind); words, punctuation runs
 * and bigrams are finalised with murmur3 fmix32 and masked into `buckets` (a power of two), char
 * n-grams take the top log2(buckets) bits of (FNV state * 0x9e3779b1) (Fibonacci hashing, cheaper). A row's features get value count/sqrt(n), n =
 * number of features emitted, so long texts do not dominate.
 */
import { CLASS, fmix32, FNV_PRIME, LOWER } from './hashing.ts';

export interface TextFeaturizerConfig {
  type: 'hashed-text-v1';
  buckets: number;
  lowercase: true;
  word_ngrams: [number, number];
  char_ngrams: [number, number];
  char_ngram_max_word_chars: number;
  punct_run_max: number;
  /** L: at most this many distinct buckets per row for bag models (first occurrences kept). */
  max_features: number;
  weighting: 'count/sqrt(n)';
  hash: 'fnv1a32+fmix32';
}

export function textFeaturizerConfig(buckets: number, maxFeatures: number): TextFeaturizerConfig {
  return {
    type: 'hashed-text-v1',
    buckets,
    lowercase: true,
    word_ngrams: [1, 2],
    char_ngrams: [3, 5],
    char_ngram_max_word_chars: 24,
    punct_run_max: 4,
    max_features: maxFeatures,
    weighting: 'count/sqrt(n)',
    hash: 'fnv1a32+fmix32',
  };
}

export const SEED_WORD = 0x811c9dc5 | 0;
export const SEED_CHAR = 0x050c5d1f | 0;
export const SEED_PUNCT = 0x2f8b3a6d | 0;
const SEED_BIGRAM = 0x5bd1e995 | 0;
const BIGRAM_MUL = 0x9e3779b1 | 0;
/** Character n-gram buckets use multiplicative (Fibonacci) hashing of the FNV state: top bits. */
const GOLDEN = 0x9e3779b1 | 0;

/**
 * Reusable featurizer. Not re-entrant: the arrays it exposes are scratch space overwritten by the
 * next call (copy them if you keep them).
 */
export class TextFeaturizer {
  readonly config: TextFeaturizerConfig;
  /** Raw bucket of every emitted feature (with repeats), filled by {@link hashes}. */
  raw: Uint32Array;
  /** Distinct buckets / their values, filled by {@link bag}. */
  readonly ids: Int32Array;
  readonly values: Float32Array;
  private readonly mask: number;
  private readonly shift: number;
  /** Occurrences per bucket during {@link bag} (16-bit: a text emits at most 5 features per code unit). */
  private readonly counts: Uint16Array;
  private wideCounts: Int32Array | null = null;
  private readonly word = new Uint16Array(64);
  private readonly bigrams: boolean;

  constructor(config: TextFeaturizerConfig) {
    if (config.type !== 'hashed-text-v1') throw new Error(`unsupported featurizer ${String(config.type)}`);
    const b = config.buckets;
    if (!Number.isInteger(b) || b < 2 || (b & (b - 1)) !== 0) throw new Error('buckets must be a power of two');
    this.config = config;
    this.mask = b - 1;
    this.shift = 32 - Math.log2(b);
    this.counts = new Uint16Array(b);
    this.raw = new Uint32Array(16384);
    this.ids = new Int32Array(config.max_features);
    this.values = new Float32Array(config.max_features);
    if (config.char_ngrams[0] !== 3 || config.char_ngrams[1] !== 5)
      throw new Error('only char_ngrams [3, 5] is implemented');
    if (config.word_ngrams[0] !== 1 || config.word_ngrams[1] > 2)
      throw new Error('word_ngrams must be [1, 1] or [1, 2]');
    this.bigrams = config.word_ngrams[1] >= 2;
    if (config.char_ngram_max_word_chars + 2 > this.word.length) throw new Error('char_ngram_max_word_chars too large');
  }

  /** Emits every feature's bucket into {@link raw}; returns how many. */
  hashes(text: string): number {
    const len = text.length;
    if (this.raw.length < len * 5 + 16) this.raw = new Uint32Array(len * 5 + 1024);
    const out = this.raw;
    const mask = this.mask;
    const shift = this.shift;
    const word = this.word;
    const maxW = this.config.char_ngram_max_word_chars;
    const punctMax = this.config.punct_run_max;
    const bigrams = this.bigrams;
    let n = 0;
    let prev = 0;
    let hasPrev = false;
    let i = 0;
    while (i < len) {
      let c = text.charCodeAt(i);
      const cls = CLASS[c];
      if (cls === 0) {
        i++;
        continue;
      }
      let th: number;
      if (cls === 1) {
        let h = SEED_WORD;
        word[0] = 1;
        let wl = 0;
        for (;;) {
          c = LOWER[c] as number;
          h = Math.imul(h ^ c, FNV_PRIME);
          if (wl < maxW) word[++wl] = c;
          if (++i >= len) break;
          c = text.charCodeAt(i);
          if (CLASS[c] !== 1) break;
        }
        th = fmix32(h);
        // character 3-, 4- and 5-grams of \u0001 word \u0002
        word[wl + 1] = 2;
        const total = wl + 2;
        let p = 0;
        for (; p + 5 <= total; p++) {
          // positions with all three n-gram lengths: no branches
          let g = Math.imul(SEED_CHAR ^ (word[p] as number), FNV_PRIME);
          g = Math.imul(g ^ (word[p + 1] as number), FNV_PRIME);
          g = Math.imul(g ^ (word[p + 2] as number), FNV_PRIME);
          out[n] = Math.imul(g, GOLDEN) >>> shift;
          g = Math.imul(g ^ (word[p + 3] as number), FNV_PRIME);
          out[n + 1] = Math.imul(g, GOLDEN) >>> shift;
          g = Math.imul(g ^ (word[p + 4] as number), FNV_PRIME);
          out[n + 2] = Math.imul(g, GOLDEN) >>> shift;
          n += 3;
        }
        for (; p + 3 <= total; p++) {
          let g = Math.imul(SEED_CHAR ^ (word[p] as number), FNV_PRIME);
          g = Math.imul(g ^ (word[p + 1] as number), FNV_PRIME);
          g = Math.imul(g ^ (word[p + 2] as number), FNV_PRIME);
          out[n++] = Math.imul(g, GOLDEN) >>> shift;
          if (p + 4 <= total) {
            g = Math.imul(g ^ (word[p + 3] as number), FNV_PRIME);
            out[n++] = Math.imul(g, GOLDEN) >>> shift;
          }
        }
      } else {
        let h = SEED_PUNCT;
        let k = 0;
        for (;;) {
          h = Math.imul(h ^ c, FNV_PRIME);
          k++;
          if (++i >= len || k >= punctMax) break;
          c = text.charCodeAt(i);
          if (CLASS[c] !== 2) break;
        }
        th = fmix32(h);
      }
      out[n++] = th & mask;
      if (bigrams && hasPrev) out[n++] = fmix32((Math.imul(prev ^ SEED_BIGRAM, BIGRAM_MUL) + th) | 0) & mask;
      prev = th;
      hasPrev = true;
    }
    return n;
  }

  /**
   * Distinct buckets and their values (count/sqrt(n)) into {@link ids}/{@link values}, in order of
   * first occurrence, at most `max_features`. Returns how many.
   */
  bag(text: string): number {
    const n = this.hashes(text);
    if (n === 0) return 0;
    // a text of more than ~13,000 characters could count past 65,535 in one bucket
    const counts = n > 0xffff ? (this.wideCounts ??= new Int32Array(this.counts.length)) : this.counts;
    const raw = this.raw;
    const ids = this.ids;
    const L = ids.length;
    const inv = 1 / Math.sqrt(n);
    let u = 0;
    for (let k = 0; k < n; k++) {
      const b = raw[k] as number;
      const c = counts[b] as number;
      if (c === 0 && u < L) ids[u++] = b;
      counts[b] = c + 1;
    }
    const values = this.values;
    for (let j = 0; j < u; j++) values[j] = (counts[ids[j] as number] as number) * inv;
    // every counted bucket is in ids unless the row was cut at max_features
    if (u < L) for (let j = 0; j < u; j++) counts[ids[j] as number] = 0;
    else for (let k = 0; k < n; k++) counts[raw[k] as number] = 0;
    return u;
  }
}
